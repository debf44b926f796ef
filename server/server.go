package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/cluster"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/server/live"
	"github.com/workflowpp/wfpp/server/page"
	"github.com/workflowpp/wfpp/tasks"
)

const (
	BodyLimitDefault       = 10 << 20 // 10 MiB
	RequestTimeoutDefault  = 30 * time.Second
	ShutdownTimeoutDefault = 10 * time.Second
	RateLimitDefault       = 1000 // starts and completions per client IP per RateWindow
	RateWindowDefault      = time.Second
	// StuckAfterDefault outlasts a round's store deadlines (a commit may
	// take 30 s) and script budgets.
	StuckAfterDefault = 2 * time.Minute
)

// Config configures a Server. The zero value of each field but Engine means
// its default.
type Config struct {
	Engine          *engine.Engine // required; the caller runs it
	Logger          *slog.Logger
	BodyLimit       int           // bytes a request body may have
	RequestTimeout  time.Duration // how long one engine or store call may take
	ShutdownTimeout time.Duration // how long Listen waits for requests in flight
	RateLimit       int           // starts and task completions per client IP per RateWindow; negative: no limit
	RateWindow      time.Duration
	RateLimiter     RateLimiter     // shares the rate limit with other replicas; nil: counted in this process
	Identity        identity.Config // users and secrets; zero: the local profile
	Live            live.Config     // the WebSocket endpoint /ws
	Health          []HealthCheck   // what degrades /health/ready without making it fail
	// StuckAfter is how long a partition may apply one round before
	// /health/ready says it is stuck (degraded). Default StuckAfterDefault.
	StuckAfter time.Duration
	// EventRoles may send messages and signals (admins always); default
	// worker and operator.
	EventRoles []string
	// Peers makes the server one replica of a cluster (the engine's
	// Config.Cluster): it forwards a request for an instance another
	// replica holds to that replica, serves the peers' internal routes and
	// asks the peers for external jobs. nil: the server runs alone.
	Peers *cluster.Peers
	// TrustedProxies are the reverse proxies in front of the server: from
	// them, X-Forwarded-For names the client the rate limit counts (and
	// X-Forwarded-Host and -Proto the host and scheme, which Fiber believes
	// from anyone while this is empty). Empty: the peer is the client.
	TrustedProxies []netip.Prefix
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.BodyLimit = cmp.Or(c.BodyLimit, BodyLimitDefault)
	c.RequestTimeout = cmp.Or(c.RequestTimeout, RequestTimeoutDefault)
	c.ShutdownTimeout = cmp.Or(c.ShutdownTimeout, ShutdownTimeoutDefault)
	c.RateLimit = cmp.Or(c.RateLimit, RateLimitDefault)
	c.RateWindow = cmp.Or(c.RateWindow, RateWindowDefault)
	c.StuckAfter = cmp.Or(c.StuckAfter, StuckAfterDefault)
	c.Identity = c.Identity.WithDefaults()
	c.Live = c.Live.WithDefaults()
	if len(c.EventRoles) == 0 {
		c.EventRoles = []string{identity.RoleWorker, identity.RoleOperator}
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Engine == nil {
		errs = append(errs, errors.New("server config: Engine is required"))
	}
	if c.BodyLimit < 0 {
		errs = append(errs, fmt.Errorf("server config: BodyLimit must not be negative, got %d", c.BodyLimit))
	}
	for i, h := range c.Health {
		if h.Name == "" || h.Check == nil {
			errs = append(errs, fmt.Errorf("server config: Health[%d] needs a Name and a Check", i))
		}
	}
	for i, p := range c.TrustedProxies {
		if !p.IsValid() {
			errs = append(errs, fmt.Errorf("server config: TrustedProxies[%d] is not an address range", i))
		}
	}
	if c.RequestTimeout < 0 || c.ShutdownTimeout < 0 || c.RateWindow < 0 {
		errs = append(errs, errors.New("server config: timeouts must not be negative"))
	}
	errs = append(errs, c.Identity.Validate(), c.Live.Validate())
	return errors.Join(errs...)
}

// Server serves the REST API of one engine.
type Server struct {
	cfg Config
	eng *engine.Engine
	log *slog.Logger
	app *fiber.App

	metrics     *metrics
	unsubscribe []func()
	hub         *live.Hub
	tasks       *tasks.Service
	inbox       *tasks.Inbox
	api         *api.Service
	pages       *page.Service
	forwarder   *cluster.Forwarder // nil alone
}

// New builds a Server and its routes. It does not listen; call Listen or
// use App with app.Test.
func New(cfg Config) (*Server, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, eng: cfg.Engine, log: cfg.Logger}
	if cfg.Peers != nil {
		s.forwarder = cluster.NewForwarder(cfg.Peers, cfg.RequestTimeout)
	}
	var err error
	if s.tasks, err = tasks.New(tasks.Config{Engine: cfg.Engine, Store: cfg.Engine.Queries(), Forms: cfg.Engine}); err != nil {
		return nil, err
	}
	s.app = fiber.New(fiber.Config{
		AppName:               "wfpp",
		BodyLimit:             cfg.BodyLimit,
		DisableStartupMessage: true,
		Immutable:             true, // ids from params outlive the request in logs and errors
		ErrorHandler:          api.HandleError,
		ReadTimeout:           cfg.RequestTimeout,
		WriteTimeout:          cfg.RequestTimeout,
		// X-Forwarded-Host and -Proto (c.Hostname, c.Protocol) only from
		// the trusted proxies; X-Forwarded-For goes through clientIP.
		EnableTrustedProxyCheck: len(cfg.TrustedProxies) > 0,
		TrustedProxies:          proxyRanges(cfg.TrustedProxies),
	})
	s.setup()
	if err := s.loadInbox(); err != nil {
		s.Close()
		return nil, err
	}
	if s.api, err = api.New(api.Config{
		Engine: s.eng, Tasks: s.tasks, Inbox: s.inbox, Logger: s.log,
		RequestTimeout: cfg.RequestTimeout, EventRoles: cfg.EventRoles, Peers: apiPeers(cfg.Peers),
		Cluster: cfg.Engine, LeaseTTL: leaseTTL(cfg.Peers),
	}); err != nil {
		s.Close()
		return nil, err
	}
	if s.pages, err = page.New(page.Config{
		Engine: s.eng, API: s.api, Tasks: s.tasks, Inbox: s.inbox, Logger: s.log, RequestTimeout: cfg.RequestTimeout,
	}); err != nil {
		s.Close()
		return nil, err
	}
	s.routes()
	return s, nil
}

func proxyRanges(ps []netip.Prefix) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Masked().String()
	}
	return out
}

// App returns the Fiber app, for tests (app.Test) and for mounting.
func (s *Server) App() *fiber.App { return s.app }

func (s *Server) routes() {
	s.app.Use(s.middleware()...)
	s.app.Get("/metrics", s.metricsHandler())
	s.app.Get("/health/live", s.live)
	s.app.Get("/health/ready", s.ready)

	s.api.HookRoutes(s.app) // the token is the credential: before authentication
	if s.cfg.Peers != nil {
		s.cfg.Peers.Routes(s.app, s.eng, s.api, s.cfg.RequestTimeout) // the cluster secret is the credential
	}
	s.identityRoutes()
	s.api.Routes(s.app.Group("/api/v1"))
	s.liveRoutes()
	s.pages.Routes(s.app)
}

// Listen serves on addr until ctx is done, then shuts down gracefully,
// waiting up to ShutdownTimeout for requests in flight.
func (s *Server) Listen(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is done, like Listen.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.log.Info("http server listening", "addr", ln.Addr().String())
	tl := newTrackingListener(ln)
	errc := make(chan error, 1)
	go func() { errc <- s.app.Listener(tl) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	defer s.Close()
	// Requests in flight finish; connections that never asked for anything
	// are closed, again every 100 ms while the shutdown lasts (one may still
	// be accepted meanwhile), as fasthttp does with idle keep-alive ones.
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			tl.closeSilent()
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	defer close(stop)
	if err := s.app.ShutdownWithTimeout(s.cfg.ShutdownTimeout); err != nil {
		return fmt.Errorf("shutting down http server: %w", err)
	}
	// A shutdown that comes before fasthttp has taken the listener (a
	// server stopped right after it started) does not close it: close it
	// here, or its Serve accepts for ever.
	_ = tl.Close()
	return <-errc
}
