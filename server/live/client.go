package live

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
)

// writeBatchMax bounds the bytes one write to a client sends.
const writeBatchMax = 64 << 10

// client is one WebSocket connection. Its writer goroutine is the only one
// that writes to the connection: frames from the hub and the reader's
// replies through out, pongs through ctrl, the close frame on stop.
type client struct {
	hub    *Hub
	viewer Viewer
	ws     *websocket.Conn
	conn   net.Conn // ws's: written to directly, in whole frames

	out  chan []byte
	ctrl chan []byte

	stopOnce  sync.Once
	kill      chan struct{}
	closeCode int
	closeText string
	wrote     chan struct{} // closed when the writer has ended

	// Guarded by hub.mu.
	mark        uint64
	dead        bool
	instances   map[string]*instanceSub
	definitions map[string]struct{}
	inbox       bool
}

func newClient(h *Hub, ws *websocket.Conn, v Viewer) *client {
	return &client{
		hub: h, viewer: v, ws: ws, conn: ws.NetConn(),
		out:         make(chan []byte, h.cfg.SendBuffer),
		ctrl:        make(chan []byte, 4),
		kill:        make(chan struct{}),
		wrote:       make(chan struct{}),
		instances:   map[string]*instanceSub{},
		definitions: map[string]struct{}{},
	}
}

// stop makes the writer send a close frame with code and reason (after
// the write under way) and close the connection. The first call decides.
func (c *client) stop(code int, reason string) {
	c.stopOnce.Do(func() {
		c.closeCode, c.closeText = code, reason
		close(c.kill)
	})
}

// reply queues f, waiting while the queue is full; it gives up when the
// client stops. The reader uses it: waiting there blocks only this client.
func (c *client) reply(f []byte) bool {
	select {
	case c.out <- f:
		return true
	case <-c.kill:
		return false
	}
}

func (c *client) control(f []byte) {
	select {
	case c.ctrl <- f:
	default: // a peer that floods pings gets fewer pongs
	}
}

func (c *client) writeLoop() {
	defer close(c.wrote)
	// Closing a hijacked fasthttp connection is left to its handler: wake
	// the reader there, so that it returns and the connection closes.
	defer func() { _ = c.conn.SetReadDeadline(time.Now()) }()
	cfg := c.hub.cfg
	ping := time.NewTicker(cfg.PingInterval)
	defer ping.Stop()
	buf := make([]byte, 0, 4096)
	for {
		select {
		case f := <-c.out:
			buf = append(buf[:0], f...)
		drain:
			for len(buf) < writeBatchMax {
				select {
				case f := <-c.out:
					buf = append(buf, f...)
				default:
					break drain
				}
			}
		case f := <-c.ctrl:
			buf = append(buf[:0], f...)
		case <-ping.C:
			buf = append(buf[:0], frame(opPing, nil)...)
		case <-c.kill:
			_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = c.conn.Write(closeFrame(c.closeCode, c.closeText))
			return
		}
		if err := c.write(buf, cfg.WriteTimeout); err != nil {
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				c.hub.evict(c, closePolicy, "client too slow: a write timed out")
			}
			c.stop(closeInternal, "")
			return
		}
		if cap(buf) > 4*writeBatchMax {
			buf = make([]byte, 0, 4096)
		}
	}
}

func (c *client) write(b []byte, timeout time.Duration) error {
	if err := c.conn.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	_, err := c.conn.Write(b)
	return err
}
