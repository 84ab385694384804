-- wrk script of the Naipes benchmark (bench/run.py): POST the JSON file named by
-- NAIPES_BENCH_BODY (a GET when it is empty), and print the figures as one JSON line.
local path = os.getenv("NAIPES_BENCH_BODY")
if path and path ~= "" then
  local file = assert(io.open(path, "rb"))
  wrk.method = "POST"
  wrk.body = file:read("*a")
  wrk.headers["Content-Type"] = "application/json"
  file:close()
end

local non2xx = 0
response = function(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "errors_connect": %d, "errors_read": %d, "errors_write": %d, ' ..
    '"errors_status": %d, "errors_timeout": %d, "p50_us": %d, "p99_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout, latency:percentile(50), latency:percentile(99), latency.mean))
end
