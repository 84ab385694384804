-- wrk script of the Naipes benchmark (bench/run.py): POST the JSON file named by
-- NAIPES_BENCH_BODY (a GET when it is empty), and print the figures as one JSON line. wrk counts
-- every answer in its requests, whatever its status, and only those of 400 and above in its status
-- errors: errors_status is this script's own count of answers whose status is not 2xx, which
-- bench/run.py takes out of the throughput.
local path = os.getenv("NAIPES_BENCH_BODY")
if path and path ~= "" then
  local file = assert(io.open(path, "rb"))
  wrk.method = "POST"
  wrk.body = file:read("*a")
  wrk.headers["Content-Type"] = "application/json"
  file:close()
end

-- Each wrk thread runs the script in its own Lua state, and done in the main one: the count is
-- kept by each thread (a global, for thread:get) and added up from the threads setup was given.
local threads = {}
setup = function(thread)
  table.insert(threads, thread)
end

non2xx = 0
response = function(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

done = function(summary, latency, requests)
  local non2xx = 0
  for _, thread in ipairs(threads) do non2xx = non2xx + thread:get("non2xx") end
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "errors_connect": %d, "errors_read": %d, "errors_write": %d, ' ..
    '"errors_status": %d, "errors_timeout": %d, "p50_us": %d, "p99_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write,
    non2xx, summary.errors.timeout, latency:percentile(50), latency:percentile(99), latency.mean))
end
