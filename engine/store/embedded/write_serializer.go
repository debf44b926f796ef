package embedded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"syscall"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// writeSerializer is a wire-protocol proxy in front of FerretDB that runs the
// write commands of one database one at a time.
//
// FerretDB v1 executes update, findAndModify and delete as a read, a filter in
// Go and a separate write by _id, with nothing holding the document in
// between. Concurrent conditional updates of one document then all succeed and
// $inc loses increments, which breaks the optimistic concurrency and atomic
// claims the store relies on. SQLite admits one writer per database file
// anyway, so serialising writes per database costs little. Reads pass
// through concurrently.
type writeSerializer struct {
	ln     net.Listener
	target string
	logger *slog.Logger
	direct *directWriter // nil: every command goes to FerretDB
	reader *directReader // nil with direct: every find goes to FerretDB

	locksMu sync.Mutex
	locks   map[string]*sync.Mutex // by database name

	connsMu sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool

	wg sync.WaitGroup
}

// serializedCommands are those FerretDB runs as read-then-write.
// Inserts are included: they take SQLite's write lock anyway. Dropping a
// database waits for its writes, so that a direct write never lands in a
// file being removed.
var serializedCommands = map[string]bool{
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"dropDatabase": true,
}

const (
	opMsg            = 2013
	msgHeaderLen     = 16
	maxMessageLen    = 48_000_000 + 16*1024*1024 // maxMessageSizeBytes plus slack
	flagMoreToCome   = 1 << 1
	flagChecksumSent = 1 << 0
)

func newWriteSerializer(ln net.Listener, target string, logger *slog.Logger, direct *directWriter) *writeSerializer {
	p := &writeSerializer{
		ln:     ln,
		target: target,
		logger: logger,
		direct: direct,
		locks:  make(map[string]*sync.Mutex),
		conns:  make(map[net.Conn]struct{}),
	}
	if direct != nil {
		p.reader = newDirectReader(direct.dir, logger)
	}
	p.wg.Go(p.acceptLoop)
	return p
}

func (p *writeSerializer) acceptLoop() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				p.logger.Error("embedded proxy stopped accepting", slog.Any("error", err))
			}
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			p.logger.Error("embedded proxy cannot reach FerretDB", slog.String("addr", p.target), slog.Any("error", err))
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Go(func() {
			defer p.untrack(client, server)
			if err := p.relay(client, server); !isClosed(err) { // relay ends only with an error
				p.logger.Warn("embedded proxy connection failed", slog.Any("error", err))
			}
		})
	}
}

// relay forwards requests from client to server and responses back, one
// request at a time, holding the database's write lock around writes (a
// direct write's answer goes out after it).
func (p *writeSerializer) relay(client, server net.Conn) error {
	fromClient := bufio.NewReaderSize(client, 64*1024)
	fromServer := bufio.NewReaderSize(server, 64*1024)
	var req, res []byte
	for {
		var err error
		if req, err = readMessage(fromClient, req); err != nil {
			return err
		}
		if reply, ok := p.findDirect(req); ok {
			if _, err := client.Write(reply); err != nil {
				return err
			}
			continue
		}
		// Planned and queued before the lock: whoever holds the lock writes
		// it with its own (directWriter.commitQueued).
		ticket := p.queueDirect(req)
		unlock := p.lockFor(req)
		schema := p.direct != nil && p.direct.files.forget(req)
		out := req
		if ticket == nil || !ticket.done {
			out, err = p.narrowGuards(req, server, fromServer)
		}
		var reply []byte // of a direct write
		if err == nil {
			if ticket == nil && !sameMessage(out, req) {
				ticket = p.ticketFor(out) // its guards checked, it may be direct now
			}
			if ticket != nil && !ticket.done {
				p.direct.commitQueued(ticket)
			}
			if ticket != nil && ticket.ok {
				reply = ticket.reply
			} else {
				err = p.roundTrip(out, &res, client, server, fromServer)
			}
		}
		if schema {
			p.direct.files.forget(req) // and after: a direct write may have looked in between
			p.reader.files.forget(req)
		}
		unlock()
		if err == nil && reply != nil {
			// Committed: sending the answer need not hold up the next
			// writer, which was the store's bottleneck with its replicas.
			_, err = client.Write(reply)
		}
		if err != nil {
			return err
		}
	}
}

// findDirect answers req from SQLite itself if it is a find the direct
// path takes; unlocked, as FerretDB's reads are.
func (p *writeSerializer) findDirect(req []byte) ([]byte, bool) {
	if p.reader == nil {
		return nil, false
	}
	return p.reader.find(req)
}

// queueDirect queues req for the direct path, planned; nil when that does
// not take it as it is.
func (p *writeSerializer) queueDirect(req []byte) *directTicket {
	if p.direct == nil {
		return nil
	}
	c, ok := planCommand(req)
	if !ok {
		return nil
	}
	return p.direct.enqueue(c)
}

// ticketFor plans req for the direct path without queueing it: the caller
// holds the lock and writes it at once.
func (p *writeSerializer) ticketFor(req []byte) *directTicket {
	c, ok := planCommand(req)
	if !ok {
		return nil
	}
	return &directTicket{cmd: c}
}

// sameMessage reports whether narrowGuards left a request as it was.
func sameMessage(out, req []byte) bool {
	return len(out) == len(req) && (len(req) == 0 || &out[0] == &req[0])
}

func (p *writeSerializer) roundTrip(req []byte, res *[]byte, client, server net.Conn, fromServer *bufio.Reader) error {
	if _, err := server.Write(req); err != nil {
		return err
	}
	if msgFlags(req)&flagMoreToCome != 0 {
		return nil // unacknowledged: the server sends no reply
	}
	for { // an exhaust reply streams messages until one lacks moreToCome
		var err error
		if *res, err = readMessage(fromServer, *res); err != nil {
			return err
		}
		if _, err := client.Write(*res); err != nil {
			return err
		}
		if msgFlags(*res)&flagMoreToCome == 0 {
			return nil
		}
	}
}

// lockFor locks the write lock of the request's database if the request is
// a write command, and returns the unlock function.
func (p *writeSerializer) lockFor(msg []byte) func() {
	db, ok := writeDatabase(msg)
	if !ok {
		return func() {}
	}
	p.locksMu.Lock()
	mu := p.locks[db]
	if mu == nil {
		mu = new(sync.Mutex)
		p.locks[db] = mu
	}
	p.locksMu.Unlock()
	mu.Lock()
	return mu.Unlock
}

// writeDatabase returns the database of an OP_MSG write command. Other
// opcodes (the legacy OP_QUERY handshake, OP_COMPRESSED, which is never
// negotiated because FerretDB offers no compressors) are not writes.
func writeDatabase(msg []byte) (string, bool) {
	body, ok := msgBody(msg)
	if !ok {
		return "", false
	}
	first, err := body.IndexErr(0)
	if err != nil || !serializedCommands[first.Key()] {
		return "", false
	}
	return body.Lookup("$db").StringValueOK()
}

// msgBody returns the command body of an OP_MSG, without reading the rest.
func msgBody(msg []byte) (bsoncore.Document, bool) {
	if len(msg) < msgHeaderLen+5 || binary.LittleEndian.Uint32(msg[12:]) != opMsg {
		return nil, false
	}
	end := len(msg)
	if msgFlags(msg)&flagChecksumSent != 0 {
		end -= 4
	}
	for i := msgHeaderLen + 4; i < end; {
		kind := msg[i]
		i++
		if i+4 > end {
			return nil, false
		}
		size := int(binary.LittleEndian.Uint32(msg[i:]))
		if size < 5 || i+size > end {
			return nil, false
		}
		if kind == 0 {
			return bsoncore.Document(msg[i : i+size]), true
		}
		i += size // kind 1: a document sequence, size includes itself
	}
	return nil, false
}

func msgFlags(msg []byte) uint32 {
	if len(msg) < msgHeaderLen+4 || binary.LittleEndian.Uint32(msg[12:]) != opMsg {
		return 0
	}
	return binary.LittleEndian.Uint32(msg[msgHeaderLen:])
}

// readMessage reads one wire message into buf, reusing its storage.
func readMessage(r *bufio.Reader, buf []byte) ([]byte, error) {
	var lenBytes [4]byte
	if _, err := io.ReadFull(r, lenBytes[:]); err != nil {
		return buf, err
	}
	n := int(binary.LittleEndian.Uint32(lenBytes[:]))
	if n < msgHeaderLen || n > maxMessageLen {
		return buf, fmt.Errorf("wire message of %d bytes", n)
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	copy(buf, lenBytes[:])
	_, err := io.ReadFull(r, buf[4:])
	return buf, err
}

func (p *writeSerializer) track(conns ...net.Conn) bool {
	p.connsMu.Lock()
	defer p.connsMu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *writeSerializer) untrack(conns ...net.Conn) {
	p.connsMu.Lock()
	defer p.connsMu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Close stops accepting, closes every connection and waits for the relays.
func (p *writeSerializer) Close() {
	p.connsMu.Lock()
	p.closed = true
	_ = p.ln.Close()
	for c := range p.conns {
		_ = c.Close()
	}
	p.connsMu.Unlock()
	p.wg.Wait()
	if p.direct != nil {
		p.direct.files.close()
		p.reader.files.close()
	}
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
