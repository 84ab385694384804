"""Headless Chromium for the JavaScript client's browser test (tests/test_js_browser.py), driven
over the Chrome DevTools Protocol on a pipe (``--remote-debugging-pipe``: the browser reads
commands on its fd 3 and writes answers and events on its fd 4, each a JSON text ended by a NUL).
The standard library is enough: no websocket client, no Playwright (whose releases are tied to
their own builds of the browser), no port for the debugger. Not a test module."""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

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
    """One headless Chromium with a fresh profile; ``tab(url)`` opens a page, ``close()`` ends it."""

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
        return Tab(self, session, url)

    def _stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                try:
                    self.send("Browser.close", timeout=5)
                except (BrowserError, OSError):
                    pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        finally:
            for fd in (self._commands, self._events):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.log.close()
            shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """A page of the browser: ``run(js)`` evaluates an expression there and gives its value."""

    def __init__(self, browser: Browser, session: str, url: str) -> None:
        self.browser, self.session, self.url = browser, session, url

    def run(self, expression: str, timeout: float | None = None) -> Any:
        """The value of ``expression`` (a promise is awaited), as JSON gives it; an exception
        thrown in the page is a BrowserError with its stack and the page's console."""
        answer = self.browser.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                                   session=self.session, timeout=timeout)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            thrown = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"in the page {self.url}: {thrown}\nconsole: {self.console()}")
        return answer["result"].get("value")

    def console(self) -> list[str]:
        """What the page wrote on its console, and its uncaught errors."""
        lines = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            if event["method"] == "Runtime.consoleAPICalled":
                lines.append(" ".join(str(a.get("value", a.get("description", ""))) for a in event["params"]["args"]))
            elif event["method"] == "Runtime.exceptionThrown":
                lines.append(str(event["params"]["exceptionDetails"].get("exception", {}).get("description")))
        return lines
