"""Headless browsers for the JavaScript client's browser test (tests/test_js_browser.py), one
small interface over two engines (``launch(name, executable)``: a Browser whose ``tab(url)`` is a
Tab whose ``run(js)`` gives a value), not Playwright or Selenium (whose releases are tied to their
own builds of the browsers, or to a driver binary), but the browsers as Debian packages them:

- Chromium (Blink), over the Chrome DevTools Protocol on a pipe (``--remote-debugging-pipe``: the
  browser reads commands on its fd 3 and writes answers and events on its fd 4, each a JSON text
  ended by a NUL), with the standard library.
- Firefox (Gecko), over WebDriver BiDi, which Firefox serves itself on a websocket
  (``--remote-debugging-port``; it has no pipe, and no DevTools protocol any more), with the
  ``websockets`` package (the dev extra). No geckodriver: BiDi needs none.

Not a test module."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage", "--mute-audio"]


def chromium() -> str | None:
    """The Chromium of this machine (Debian's package: chromium), None if there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(AssertionError):
    """The browser said no, or did not answer in time."""


class Browser:
    """One headless browser with a fresh profile: ``tab(url)`` opens a page, ``close()`` ends it;
    ``version`` names it (Chromium/156.0..., firefox 153.8.0esr)."""

    version: str
    process: subprocess.Popen[bytes]
    log: Any  # a temporary file: the browser's output
    profile: str

    def tab(self, url: str) -> Tab:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _stderr(self) -> str:
        self.log.seek(0)
        return str(self.log.read().decode(errors="replace"))[-2000:]

    def _reap(self) -> None:
        """Wait for the browser to exit (killed after 10 s)."""
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _forget(self) -> None:
        """Drop its output and its profile."""
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """A page of a browser: ``run(js)`` evaluates JavaScript there (an expression, or statements
    and their last value) and gives its value, a promise awaited, as JSON gives it (undefined is
    None); an exception thrown in the page is a BrowserError with its stack and the page's console."""

    url: str

    def run(self, expression: str, timeout: float | None = None) -> Any:
        raise NotImplementedError

    def console(self) -> list[str]:
        """What the page wrote on its console, and its uncaught errors."""
        raise NotImplementedError


class Chromium(Browser):
    """Headless Chromium, over the DevTools protocol on a pipe."""

    def __init__(self, executable: str, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="naipes-chromium-")
        commands_read, self._commands = os.pipe()  # we write, the browser reads on its fd 3
        self._events, events_write = os.pipe()  # the browser writes on its fd 4, we read

        def pipes_at_3_and_4() -> None:  # (in the child: out of the way first, as the pipes may be 3 or 4 already)
            high_read, high_write = fcntl.fcntl(commands_read, fcntl.F_DUPFD, 10), fcntl.fcntl(events_write, fcntl.F_DUPFD, 10)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.log = tempfile.TemporaryFile()  # (its stderr: a pipe nobody reads would fill, and stop it)
        self.process = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
                                        preexec_fn=pipes_at_3_and_4, close_fds=False)
        os.close(commands_read)
        os.close(events_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        try:
            self.version = self.send("Browser.getVersion")["product"]
        except BaseException:
            self.close()
            raise

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        """A command's result (its error raised as BrowserError); the events that come meanwhile go to ``events``."""
        self._next_id += 1
        command_id = self._next_id
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        answer = self.wait(lambda m: m.get("id") == command_id, timeout, f"{method}'s answer")
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        return dict(answer["result"])

    def wait(self, wanted: Any, timeout: float | None = None, what: str = "an event") -> dict[str, Any]:
        """The next message ``wanted(message)`` is true of."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        for event in self.events:  # (one that came while another answer was awaited)
            if wanted(event):
                self.events.remove(event)
                return event
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if wanted(message):
                    return dict(message)
                if "method" in message:
                    self.events.append(message)
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._events], [], [], left)[0]:
                raise BrowserError(f"Chromium: no {what} within {self.timeout if timeout is None else timeout} s")
            data = os.read(self._events, 1 << 20)
            if not data:
                raise BrowserError(f"Chromium has ended: {self._stderr()}")
            self._buffer += data

    def tab(self, url: str) -> Tab:
        """A new tab on ``url``, once its page has loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=session)
        self.send("Runtime.enable", session=session)
        navigated = self.send("Page.navigate", {"url": url}, session=session)
        if navigated.get("errorText"):
            raise BrowserError(f"{url}: {navigated['errorText']}")
        self.wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session, what=f"load of {url}")
        return ChromiumTab(self, session, url)

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                try:
                    self.send("Browser.close", timeout=5)
                except (BrowserError, OSError):
                    pass
            self._reap()
        finally:
            for fd in (self._commands, self._events):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._forget()


class ChromiumTab(Tab):
    def __init__(self, browser: Chromium, session: str, url: str) -> None:
        self.browser, self.session, self.url = browser, session, url

    def run(self, expression: str, timeout: float | None = None) -> Any:
        answer = self.browser.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                                   session=self.session, timeout=timeout)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            thrown = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"in the page {self.url}: {thrown}\nconsole: {self.console()}")
        return answer["result"].get("value")

    def console(self) -> list[str]:
        lines = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            if event["method"] == "Runtime.consoleAPICalled":
                lines.append(" ".join(str(a.get("value", a.get("description", ""))) for a in event["params"]["args"]))
            elif event["method"] == "Runtime.exceptionThrown":
                lines.append(str(event["params"]["exceptionDetails"].get("exception", {}).get("description")))
        return lines


def firefox() -> str | None:
    """The Firefox of this machine (Debian's package: firefox-esr), None if there is none."""
    for name in ("firefox-esr", "firefox"):
        found = shutil.which(name)
        if found:
            return found
    return None


# The profile's user.js: a browser that stays off the network (the test's pages are on 127.0.0.1;
# a machine without a network would make each of these a wait or an error on the console) and
# starts on a blank page. Firefox applies much the same (remote/shared/RecommendedPreferences)
# once its remote agent is up, but some services start before.
FIREFOX_PREFS: dict[str, bool | int | str] = {
    "app.update.disabledForTesting": True, "app.update.auto": False, "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False, "messaging-system.rsexperimentloader.enabled": False,
    "services.settings.server": "data:,#remote-settings-dummy/v1",  # Remote Settings (Nimbus, blocklists, CRLite...)
    "datareporting.policy.dataSubmissionEnabled": False, "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False, "toolkit.telemetry.unified": False, "toolkit.telemetry.server": "",
    "toolkit.telemetry.reportingpolicy.firstRun": False, "browser.ping-centre.telemetry": False,
    "network.captive-portal-service.enabled": False, "network.connectivity-service.enabled": False,
    "network.trr.mode": 5, "network.proxy.type": 0, "network.dns.disablePrefetch": True, "network.prefetch-next": False,
    "network.http.speculative-parallel-limit": 0, "dom.push.connection.enabled": False, "dom.push.serverURL": "",
    "browser.safebrowsing.malware.enabled": False, "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False, "browser.safebrowsing.blockedURIs.enabled": False,
    "browser.safebrowsing.provider.google4.updateURL": "", "browser.safebrowsing.provider.google4.gethashURL": "",
    "browser.safebrowsing.provider.mozilla.updateURL": "", "browser.safebrowsing.provider.mozilla.gethashURL": "",
    "extensions.update.enabled": False, "extensions.getAddons.cache.enabled": False, "extensions.blocklist.enabled": False,
    "extensions.systemAddon.update.enabled": False, "media.gmp-manager.updateEnabled": False, "media.gmp-manager.url": "",
    "browser.search.update": False, "browser.region.update.enabled": False, "browser.region.network.url": "",
    "geo.provider.network.url": "", "identity.fxaccounts.enabled": False, "browser.topsites.contile.enabled": False,
    "browser.newtabpage.enabled": False, "browser.aboutwelcome.enabled": False, "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore", "browser.startup.page": 0,
    "browser.sessionstore.resume_from_crash": False, "toolkit.startup.max_resumed_crashes": -1,
}

# Firefox's environment: no crash reporter (a dialog, a minidump upload), headless, and
# services.settings.server above obeyed (a release build ignores it otherwise, and looks up
# firefox.settings.services.mozilla.com at start: strace showed it, and nothing else, without this).
FIREFOX_ENV = {"MOZ_CRASHREPORTER_DISABLE": "1", "MOZ_HEADLESS": "1", "MOZ_REMOTE_SETTINGS_DEVTOOLS": "1"}


class Firefox(Browser):
    """Headless Firefox with a fresh profile, over WebDriver BiDi: Firefox listens on a port of its
    own choosing (``--remote-debugging-port 0``), which it writes in the profile
    (WebDriverBiDiServer.json); one BiDi session on ws://127.0.0.1:PORT/session."""

    def __init__(self, executable: str, timeout: float = 20.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="naipes-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as prefs:
            prefs.writelines(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in FIREFOX_PREFS.items())
        self.log = tempfile.TemporaryFile()  # (its stdout and stderr)
        # --no-remote: never hand the URL to another Firefox of this user (the old X11 remoting).
        self.process = subprocess.Popen([executable, "--headless", "--no-remote", "--profile", self.profile,
                                         "--remote-debugging-port", "0", "about:blank"],
                                        stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env={**os.environ, **FIREFOX_ENV})
        self._socket: Any = None
        self._connection = contextlib.ExitStack()
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        try:
            # No proxy (websockets would follow $http_proxy), no size limit (a page's answers may be
            # megabytes), no pings: the connection is a loopback one, and a test may keep Firefox busy.
            self._socket = self._connection.enter_context(connect(
                f"ws://127.0.0.1:{self._port()}/session", proxy=None, max_size=None, compression=None, ping_interval=None,
                open_timeout=timeout, close_timeout=5))
            capabilities = self.send("session.new", {"capabilities": {}})["capabilities"]
            self.version = f"{capabilities['browserName']} {capabilities['browserVersion']}"
            self.send("session.subscribe", {"events": ["log.entryAdded"]})
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        deadline = time.monotonic() + self.timeout
        path = os.path.join(self.profile, "WebDriverBiDiServer.json")
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrowserError(f"Firefox has ended ({self.process.returncode}): {self._stderr()}")
            try:
                with open(path) as file:
                    return int(json.load(file)["ws_port"])
            except (OSError, ValueError, KeyError):  # not yet written, or not whole
                time.sleep(0.05)
        raise BrowserError(f"Firefox: no WebDriver BiDi port within {self.timeout} s: {self._stderr()}")

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None) -> dict[str, Any]:
        """A command's result (its error raised as BrowserError); the events that come meanwhile go to ``events``."""
        self._next_id += 1
        command_id = self._next_id
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        try:
            self._socket.send(json.dumps({"id": command_id, "method": method, "params": params or {}}))
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                message = json.loads(self._socket.recv(timeout=left))
                if message.get("type") == "event":
                    self.events.append(message)
                elif message.get("id") == command_id:
                    break
        except TimeoutError:
            raise BrowserError(f"Firefox: no answer to {method} within {wait} s") from None
        except (ConnectionClosed, OSError) as error:
            raise BrowserError(f"Firefox has ended ({error}): {self._stderr()}") from None
        if message.get("type") == "error":
            raise BrowserError(f"{method}: {message.get('error')}: {message.get('message')}")
        return dict(message["result"])

    def tab(self, url: str) -> Tab:
        """A new tab on ``url``, once its page has loaded."""
        context = self.send("browsingContext.create", {"type": "tab"})["context"]
        self.send("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})
        return FirefoxTab(self, context, url)

    def close(self) -> None:
        try:
            if self._socket is not None and self.process.poll() is None:
                try:
                    self.send("browser.close", timeout=5)
                except BrowserError:
                    pass
            self._reap()
        finally:
            self._connection.close()
            self._forget()


class FirefoxTab(Tab):
    # BiDi's script.evaluate gives a value in its own serialization (objects as lists of pairs):
    # the page gives the JSON text instead. The code is run by an indirect eval, a script in the
    # page's global scope, as the DevTools protocol's Runtime.evaluate runs it.
    WRAP = "(async () => JSON.stringify(await (0, eval)({})))()"

    def __init__(self, browser: Firefox, context: str, url: str) -> None:
        self.browser, self.context, self.url = browser, context, url

    def run(self, expression: str, timeout: float | None = None) -> Any:
        answer = self.browser.send("script.evaluate", {"expression": self.WRAP.format(json.dumps(expression)),
                                                       "target": {"context": self.context}, "awaitPromise": True,
                                                       "resultOwnership": "none"}, timeout=timeout)
        if answer["type"] == "exception":
            details = answer["exceptionDetails"]
            stack = "\n".join(f"  at {f.get('functionName') or '?'} ({f['url']}:{f['lineNumber']}:{f['columnNumber']})"
                              for f in details.get("stackTrace", {}).get("callFrames", []))
            raise BrowserError(f"in the page {self.url}: {details.get('text')}\n{stack}\nconsole: {self.console()}")
        result = answer["result"]
        return json.loads(result["value"]) if result["type"] == "string" else None

    def console(self) -> list[str]:
        return [f"{e['params'].get('level')}: {e['params'].get('text')}" for e in self.browser.events
                if e.get("method") == "log.entryAdded" and e["params"].get("source", {}).get("context") == self.context]


# The browsers the test runs in: name -> (where it is installed, its driver, its Debian package).
BROWSERS: dict[str, tuple[Any, type[Browser], str]] = {
    "chromium": (chromium, Chromium, "chromium"),
    "firefox": (firefox, Firefox, "firefox-esr"),
}
