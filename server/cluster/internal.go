package cluster

import (
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
)

// The internal routes the peers call.
const (
	pathCorrelate    = "/internal/v1/correlate"
	pathSignal       = "/internal/v1/signal"
	pathFetchAndLock = "/internal/v1/fetch-and-lock"
	pathBulk         = "/internal/v1/bulk"
)

// Local is what the internal routes ask of this replica's engine: its own
// partitions only.
type Local interface {
	CorrelateHere(ctx context.Context, m engine.Message) (int, error)
	SignalHere(ctx context.Context, name string, vars map[string]any) (int, error)
	FetchAndLock(ctx context.Context, typ, worker string, max int, lock time.Duration) ([]engine.ExternalJob, error)
}

// Bulker runs the part of a bulk operation another replica sent: the API's
// BulkHere, on this replica's partitions only.
type Bulker interface {
	BulkHere(ctx context.Context, o api.BulkOrder, from string) (api.BulkResult, error)
}

// bulkBody is a part of a bulk operation and the replica that sends it.
type bulkBody struct {
	api.BulkOrder
	From string `json:"from"`
}

type signalBody struct {
	Name      string         `json:"name"`
	Variables map[string]any `json:"variables"`
}

type fetchBody struct {
	Type   string `json:"type"`
	Worker string `json:"worker"`
	Max    int    `json:"max"`
	LockMs int64  `json:"lockMs"`
}

// countAnswer is the answer of correlate and signal: how many instances
// took it.
type countAnswer struct {
	Count int `json:"count"`
}

// Routes registers the internal routes the peers call on app, each behind
// the cluster secret (Trusted); every call waits up to timeout for local
// or bulk.
func (p *Peers) Routes(app fiber.Router, local Local, bulk Bulker, timeout time.Duration) {
	guard := func(c *fiber.Ctx) error {
		if !p.Trusted(c) {
			return api.Forbidden("internal cluster route: send " + SecretHeader + " with the cluster secret (WFPP_CLUSTER_SECRET); without a secret only loopback callers are answered")
		}
		return c.Next()
	}
	ctx := func(c *fiber.Ctx) (context.Context, context.CancelFunc) {
		return context.WithTimeout(c.UserContext(), timeout)
	}
	app.Post(pathCorrelate, guard, func(c *fiber.Ctx) error {
		var m engine.Message
		if err := api.Decode(c, &m); err != nil {
			return err
		}
		ctx, cancel := ctx(c)
		defer cancel()
		n, err := local.CorrelateHere(ctx, m)
		if err != nil {
			return err
		}
		return c.JSON(countAnswer{Count: n})
	})
	app.Post(pathSignal, guard, func(c *fiber.Ctx) error {
		var b signalBody
		if err := api.Decode(c, &b); err != nil {
			return err
		}
		ctx, cancel := ctx(c)
		defer cancel()
		n, err := local.SignalHere(ctx, b.Name, b.Variables)
		if err != nil {
			return err
		}
		return c.JSON(countAnswer{Count: n})
	})
	app.Post(pathFetchAndLock, guard, func(c *fiber.Ctx) error {
		var b fetchBody
		if err := api.Decode(c, &b); err != nil {
			return err
		}
		if b.Max > api.JobFetchMax || b.LockMs > api.JobLockMax.Milliseconds() {
			return api.BadRequest("fetch and lock: max is %d (at most %d), lockMs %d (at most %d)", b.Max, api.JobFetchMax, b.LockMs, api.JobLockMax.Milliseconds())
		}
		ctx, cancel := ctx(c)
		defer cancel()
		jobs, err := local.FetchAndLock(ctx, b.Type, b.Worker, b.Max, time.Duration(b.LockMs)*time.Millisecond)
		if err != nil {
			return err
		}
		if jobs == nil {
			jobs = []engine.ExternalJob{}
		}
		return c.Status(http.StatusOK).JSON(fiber.Map{"items": jobs})
	})
	app.Post(pathBulk, guard, func(c *fiber.Ctx) error {
		var b bulkBody
		if err := api.Decode(c, &b); err != nil {
			return err
		}
		ctx, cancel := ctx(c)
		defer cancel()
		res, err := bulk.BulkHere(ctx, b.BulkOrder, b.From)
		if err != nil {
			return err
		}
		return c.JSON(res)
	})
}

// Trusted reports whether c comes from a peer: it carries the cluster
// secret, compared in constant time, or, when the cluster has no secret,
// it comes from loopback (replicas on one machine) and no proxy relayed it
// (a proxy on the same machine connects from loopback too, and says
// whom for in X-Forwarded-For or Forwarded).
func (p *Peers) Trusted(c *fiber.Ctx) bool {
	if p.cfg.Secret == "" {
		return c.Context().RemoteIP().IsLoopback() && c.Get(fiber.HeaderXForwardedFor) == "" && c.Get(fiber.HeaderForwarded) == ""
	}
	return subtle.ConstantTimeCompare([]byte(c.Get(SecretHeader)), []byte(p.cfg.Secret)) == 1
}
