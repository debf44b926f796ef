// Package server is the HTTP server of Workflow++ on Fiber v2. It wires its
// rooms into one app and runs it:
//
//   - server/identity: who a request is (users, sessions, bearer tokens),
//     roles, and the same-site check on writes;
//   - server/api: the REST API v1 under /api/v1, its error envelope and the
//     one rule of who reads which instance;
//   - server/live: the WebSocket hub at /ws, fed by engine events;
//   - server/page: the web app's pages and their /ui helpers.
//
// What stays here belongs to every route: the middleware (correlation id,
// request log and latency metric, panic recovery, $-key guard, rate limit),
// /health/live, /health/ready, /metrics (Prometheus), graceful shutdown.
//
//   - Every response carries X-Correlation-ID: the caller's, or a new one.
//   - Every request is logged once (method, path, status, latency_ms,
//     correlation_id) and timed in /metrics by route and status.
//   - Starts and task completions are rate limited per client IP.
package server
