wrk.method = "POST"
wrk.body = '{"email": "supplier@bench.example", "password": "bench password"}'
wrk.headers["Content-Type"] = "application/json"
