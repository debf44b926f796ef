package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// ErrDataDirLocked is returned by Start when another Server (in this or another
// process) already uses the data directory.
var ErrDataDirLocked = errors.New("embedded: data directory is in use by another server")

// ferretAddr is where FerretDB itself listens; clients reach it through the
// writeSerializer on Config.Addr.
const ferretAddr = "127.0.0.1:0"

// newMu serialises ferretdb.New, which writes a package-level variable
// (version.Get().Package) and would race when tests start servers in parallel.
var newMu sync.Mutex

// Server is a FerretDB instance running in this process with its SQLite
// backend, serving the MongoDB wire protocol on a loopback TCP port.
type Server struct {
	uri     string
	dataDir string
	proxy   *writeSerializer

	cancel context.CancelFunc
	done   chan struct{} // closed when FerretDB's Run has returned

	closeOnce sync.Once
}

// Start starts FerretDB on cfg.Addr with its data in cfg.DataDir and returns
// once the server has answered a ping. The server runs until Close; ctx bounds
// only the start.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}

	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("embedded: resolving data directory %q: %w", cfg.DataDir, err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("embedded: creating data directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		_ = unlockDir(lock)
		return nil, fmt.Errorf("embedded: listening on %s: %w", cfg.Addr, err)
	}
	f, err := newFerretDB(cfg, dir)
	if err != nil {
		_ = ln.Close()
		_ = unlockDir(lock)
		return nil, fmt.Errorf("embedded: starting FerretDB with data in %s: %w", dir, err)
	}
	ferretURI, err := url.Parse(f.MongoDBURI()) // the listener is bound by New, so this does not block
	if err != nil {
		panic(fmt.Sprintf("embedded: FerretDB's URI: %v", err)) // FerretDB builds it with net/url
	}

	var direct *directWriter
	if !cfg.ferretWrites {
		direct = newDirectWriter(dir, cfg.Sync, cfg.Logger)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &Server{
		uri:     (&url.URL{Scheme: "mongodb", Host: ln.Addr().String(), Path: "/"}).String(),
		dataDir: dir,
		proxy:   newWriteSerializer(ln, ferretURI.Host, cfg.Logger, direct),
		cancel:  cancel,
		done:    make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = f.Run(runCtx) // always nil; it returns once all connections and the backend are closed
		// Unlock only once FerretDB has closed its SQLite files.
		if err := unlockDir(lock); err != nil {
			cfg.Logger.LogAttrs(runCtx, slog.LevelError, "unlocking data directory",
				slog.String("data_dir", dir), slog.Any("error", err))
		}
	}()

	if err := s.ping(ctx, cfg.StartTimeout); err != nil {
		closeCtx, closeCancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.StartTimeout)
		defer closeCancel()
		return nil, errors.Join(fmt.Errorf("embedded: server on %s did not answer: %w", s.uri, err), s.Close(closeCtx))
	}

	cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "embedded MongoDB-wire server started",
		slog.String("uri", s.uri), slog.String("data_dir", dir))
	return s, nil
}

func newFerretDB(cfg Config, dir string) (*ferretdb.FerretDB, error) {
	newMu.Lock()
	defer newMu.Unlock()

	// ferretdb.New disables telemetry itself and locks it, and embedded
	// FerretDB starts no telemetry reporter or update check, so nothing leaves
	// the machine. Its state file is kept in memory (empty state dir).
	return ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: ferretAddr},
		Logger:   cfg.Logger.With(slog.String("component", "ferretdb")),
		Handler:  "sqlite",
		SQLiteURL: (&url.URL{
			Scheme: "file", Path: filepath.ToSlash(dir) + "/",
			RawQuery: url.Values{"_pragma": {"synchronous(" + string(cfg.Sync) + ")"}}.Encode(),
		}).String(),
	})
}

// ping waits until the server answers, bounded by ctx and timeout.
func (s *Server) ping(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	client, err := mongo.Connect(options.Client().ApplyURI(s.uri).SetServerSelectionTimeout(timeout))
	if err != nil {
		return err
	}
	pingErr := client.Ping(ctx, readpref.Primary())
	return errors.Join(pingErr, client.Disconnect(ctx))
}

// URI returns the connection string, mongodb://127.0.0.1:PORT/.
func (s *Server) URI() string { return s.uri }

// DataDir returns the absolute path of the data directory.
func (s *Server) DataDir() string { return s.dataDir }

// Close stops the server and waits until its goroutines have ended and its
// files are closed. It closes open client connections; disconnect clients
// first to let their requests finish. If ctx ends first, Close returns its
// error and the server keeps shutting down in the background.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.proxy.Close() // FerretDB's connections end with it, so Run need not wait for them
		s.cancel()
	})

	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("embedded: waiting for server %s to stop: %w", s.uri, ctx.Err())
	}
}
