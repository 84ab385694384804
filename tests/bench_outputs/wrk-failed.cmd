NAIPES_BENCH_BODY= wrk -t 1 -c 4 -d 1s -s bench/post.lua http://127.0.0.1:33323/healthz
