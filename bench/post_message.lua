wrk.method = "POST"
wrk.body = '{"message": "Benchmark message: the repair is scheduled for Tuesday."}'
wrk.headers["Content-Type"] = "application/json"
