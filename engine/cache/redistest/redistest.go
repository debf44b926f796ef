// Package redistest runs a real redis-server for tests: one per call to
// Start, on a free loopback port, stopped when the test ends. Stop and Start
// it again on the same port to test what happens while Redis is down; Save
// writes an RDB file that the next Start loads (stale data).
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startTimeout is how long redis-server may take to answer.
const startTimeout = 10 * time.Second

// Server is one redis-server process.
type Server struct {
	t    testing.TB
	port int
	dir  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	waitCh chan error
}

// Start runs redis-server on a free port with its data in a temporary
// directory. It fails the test when redis-server is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("redis-server is not installed: apt-get install -y redis-server (.ci/run does)")
	}
	s := &Server{t: t, dir: t.TempDir()}
	for attempt := 0; ; attempt++ {
		s.port = freePort(t)
		err := s.start()
		if err == nil {
			break
		}
		if attempt == 3 {
			t.Fatalf("starting redis-server: %v", err)
		}
	}
	t.Cleanup(s.Stop)
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the redis:// URL of database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Start starts the server again after Stop, on the same port, loading the
// RDB file the last Save wrote, if any.
func (s *Server) Start() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("restarting redis-server: %v", err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	cmd := exec.Command("redis-server",
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--protected-mode", "no", "--loglevel", "warning")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server exited: %w: %s", err, out.String())
		case <-time.After(20 * time.Millisecond): // polls the server; no event to wait on
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("redis-server did not answer within %s: %s", startTimeout, out.String())
		}
	}
	s.cmd = cmd
	s.waitCh = exited
	return nil
}

// Stop kills the server without saving, as a crash would.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.waitCh
	s.cmd = nil
}

// Save writes the data to the RDB file that the next Start loads.
func (s *Server) Save() {
	s.t.Helper()
	c := s.Client()
	defer c.Close()
	if err := c.Save(context.Background()).Err(); err != nil {
		s.t.Fatalf("redis SAVE: %v", err)
	}
}

// Client returns a new client of the server; close it.
func (s *Server) Client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr(), DisableIdentity: true})
}

// Prefix returns a key prefix no other test uses.
func Prefix(t testing.TB) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return strings.NewReplacer("/", ".", " ", "_").Replace(t.Name()) + ":" + hex.EncodeToString(b) + ":"
}
