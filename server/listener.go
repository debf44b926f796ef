package server

import (
	"net"
	"sync"
	"sync/atomic"
)

// trackingListener remembers its open connections so that a shutdown can
// close the ones that never sent a byte: fasthttp's graceful shutdown closes
// idle keep-alive connections but waits (up to the read timeout) on a
// connection that connected and never sent a request.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

func newTrackingListener(ln net.Listener) *trackingListener {
	return &trackingListener{Listener: ln, conns: map[*trackedConn]struct{}{}}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// closeSilent closes every connection that has not sent anything yet.
func (l *trackingListener) closeSilent() {
	l.mu.Lock()
	var silent []*trackedConn
	for c := range l.conns {
		if !c.spoke.Load() {
			silent = append(silent, c)
		}
	}
	l.mu.Unlock()
	for _, c := range silent {
		_ = c.Close()
	}
}

type trackedConn struct {
	net.Conn
	l      *trackingListener
	spoke  atomic.Bool
	closed sync.Once
}

func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.spoke.Store(true)
	}
	return n, err
}

func (c *trackedConn) Close() error {
	c.closed.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
