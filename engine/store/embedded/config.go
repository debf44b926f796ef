package embedded

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"
)

const (
	// DataDirDefault is where the SQLite files live when Config.DataDir is empty.
	DataDirDefault = "data"

	// AddrDefault listens on loopback only, on a free port.
	AddrDefault = "127.0.0.1:0"

	// StartTimeoutDefault bounds the wait for the first successful ping.
	StartTimeoutDefault = 10 * time.Second
)

// Config configures an embedded Server. The zero value is usable.
type Config struct {
	// DataDir holds one SQLite file per database. It is created if missing.
	// Default DataDirDefault (relative to the working directory).
	DataDir string

	// Addr is the TCP address to listen on, host:port. Port 0 picks a free port.
	// Only loopback hosts are accepted: the server has no authentication.
	// Default AddrDefault.
	Addr string

	// Logger receives FerretDB's log records. When nil, FerretDB logs only
	// warnings and errors, to slog.Default's handler.
	Logger *slog.Logger

	// StartTimeout bounds how long Start waits for the server to answer a ping.
	// Default StartTimeoutDefault.
	StartTimeout time.Duration

	// Sync is how hard SQLite pushes each commit to disk. SyncFull (the
	// default) syncs the write-ahead log on every commit: an acknowledged
	// write survives a process crash and a power loss. SyncNormal syncs only
	// at checkpoints: an acknowledged write survives a process crash (kill -9),
	// but the last commits may be lost if the machine loses power; it is
	// several times faster.
	Sync Sync

	// ferretWrites sends every write to FerretDB, none through the direct
	// path (direct.go): tests compare the two.
	ferretWrites bool
}

// Sync is SQLite's synchronous setting for the embedded store.
type Sync string

const (
	SyncFull   Sync = "full"
	SyncNormal Sync = "normal"
)

// WithDefaults returns a copy of c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	c.DataDir = cmp.Or(c.DataDir, DataDirDefault)
	c.Sync = cmp.Or(c.Sync, SyncFull)
	c.Addr = cmp.Or(c.Addr, AddrDefault)
	c.StartTimeout = cmp.Or(c.StartTimeout, StartTimeoutDefault)
	if c.Logger == nil {
		c.Logger = slog.New(quietHandler{base: slog.Default().Handler()})
	}
	return c
}

func (c Config) validate() error {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("embedded: Addr %q: want host:port, e.g. %q: %w", c.Addr, AddrDefault, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("embedded: Addr %q: host must be loopback (127.0.0.1, ::1 or localhost); "+
			"the embedded server has no authentication, use a real MongoDB to listen on a network", c.Addr)
	}
	if c.StartTimeout < 0 {
		return errors.New("embedded: StartTimeout must not be negative")
	}
	if c.Sync != SyncFull && c.Sync != SyncNormal {
		return fmt.Errorf("embedded: Sync %q: use %q or %q", c.Sync, SyncFull, SyncNormal)
	}
	return nil
}
