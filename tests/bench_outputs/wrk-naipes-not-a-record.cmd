NAIPES_BENCH_BODY=tests/bench_outputs/bodies/not-a-record.json wrk -t 1 -c 4 -d 1s -s bench/post.lua http://127.0.0.1:33111/v1/hands:validate
