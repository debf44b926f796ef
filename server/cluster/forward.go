package cluster

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/proxy"
	"github.com/valyala/fasthttp"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
)

// ForwardedHeader marks a request one replica forwarded to another; its
// value is the id of the replica that forwarded it.
const ForwardedHeader = "X-Wfpp-Forwarded"

// Forwarder sends a request whose instance another replica holds to that
// replica and relays its answer as is (status, headers, body), so that any
// replica answers any request as the owner would.
type Forwarder struct {
	peers   *Peers
	timeout time.Duration
	client  *fasthttp.Client
}

// NewForwarder returns the forwarder of the replica of p; a forwarded
// request waits up to timeout for the owner's answer.
func NewForwarder(p *Peers, timeout time.Duration) *Forwarder {
	return &Forwarder{peers: p, timeout: timeout, client: &fasthttp.Client{
		NoDefaultUserAgentHeader: true,
		DisablePathNormalizing:   true, // the owner sees the path the client sent
	}}
}

// Handle is the middleware: it runs the route and, when the route's error
// is an engine.NotOwnerError naming the owner's address, sends the request
// there. Other errors, and NotOwnerErrors it cannot forward, go on to the
// error handler (a 503 with Retry-After).
func (f *Forwarder) Handle(c *fiber.Ctx) error {
	err := c.Next()
	var notOwner *engine.NotOwnerError
	if err == nil || !errors.As(err, &notOwner) || notOwner.Address == "" {
		return err
	}
	if by := c.Get(ForwardedHeader); by != "" {
		return fmt.Errorf("replica %s forwarded this request here, to replica %s, which does not hold its partition either: "+
			"the partition is moving between replicas, try again in a second: %w", by, f.peers.Self(), err)
	}
	req := c.Request()
	req.Header.Set(ForwardedHeader, f.peers.Self())
	if f.peers.cfg.Secret != "" {
		req.Header.Set(SecretHeader, f.peers.cfg.Secret) // the owner's rate limit knows it counted here
	}
	req.Header.Set(api.CorrelationHeader, api.CorrelationID(c)) // one id in both replicas' logs
	if perr := proxy.DoTimeout(c, "http://"+notOwner.Address+c.OriginalURL(), f.timeout, f.client); perr != nil {
		c.Response().Reset() // nothing of a broken answer goes out
		return fmt.Errorf("forwarding to replica %s at %s failed (%w): try again in a second: %w",
			notOwner.Owner, notOwner.Address, perr, err)
	}
	return nil
}

// Close closes the connections kept open to other replicas.
func (f *Forwarder) Close() { f.client.CloseIdleConnections() }
