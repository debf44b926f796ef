package connector_test

import (
	"crypto/tls"
	"encoding/base64"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// smtpStub is a local SMTP server that speaks enough of the protocol for
// net/smtp (EHLO, AUTH PLAIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT) and
// records what it receives.
type smtpStub struct {
	Addr string
	// rcptReply is the reply to RCPT TO of an address (250 when absent);
	// %s in it is replaced by the credentials AUTH PLAIN sent.
	rcptReply map[string]string
	// startTLS, when set, is offered as STARTTLS with this server config.
	startTLS *tls.Config

	mu       sync.Mutex
	auth     []string // decoded AUTH PLAIN responses
	messages []smtpMessage
}

// smtpMessage is one message the stub accepted.
type smtpMessage struct {
	From string
	To   []string
	Data string
}

func newSMTPStub(t *testing.T, rcptReply map[string]string, startTLS *tls.Config) *smtpStub {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpStub{Addr: l.Addr().String(), rcptReply: rcptReply, startTLS: startTLS}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				s.serve(conn)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	return s
}

func (s *smtpStub) serve(conn net.Conn) {
	c := textproto.NewConn(conn)
	var (
		msg  smtpMessage
		auth string
	)
	reply := func(lines ...string) error {
		for _, l := range lines {
			if err := c.PrintfLine("%s", l); err != nil {
				return err
			}
		}
		return nil
	}
	if reply("220 stub ESMTP ready") != nil {
		return
	}
	for {
		line, err := c.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			if s.startTLS != nil {
				err = reply("250-stub greets you", "250-STARTTLS", "250-AUTH PLAIN", "250 8BITMIME")
				break
			}
			err = reply("250-stub greets you", "250-AUTH PLAIN", "250 8BITMIME")
		case "STARTTLS":
			if err = reply("220 2.0.0 ready to start TLS"); err != nil {
				break
			}
			tlsConn := tls.Server(conn, s.startTLS)
			if tlsConn.Handshake() != nil {
				return
			}
			conn, c = tlsConn, textproto.NewConn(tlsConn)
		case "HELO", "NOOP":
			err = reply("250 OK")
		case "RSET":
			msg = smtpMessage{}
			err = reply("250 OK")
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			decoded, derr := base64.StdEncoding.DecodeString(resp)
			if mech != "PLAIN" || derr != nil {
				err = reply("504 5.5.4 unrecognised authentication")
				break
			}
			auth = string(decoded)
			s.mu.Lock()
			s.auth = append(s.auth, auth)
			s.mu.Unlock()
			err = reply("235 2.7.0 Authentication successful")
		case "MAIL":
			msg.From = address(arg)
			err = reply("250 2.1.0 OK")
		case "RCPT":
			to := address(arg)
			if r, ok := s.rcptReply[to]; ok {
				err = reply(strings.ReplaceAll(r, "%s", strings.ReplaceAll(auth, "\x00", "/")))
				break
			}
			msg.To = append(msg.To, to)
			err = reply("250 2.1.5 OK")
		case "DATA":
			if err = reply("354 go ahead"); err != nil {
				break
			}
			data, derr := c.ReadDotBytes()
			if derr != nil {
				return
			}
			msg.Data = string(data)
			s.mu.Lock()
			s.messages = append(s.messages, msg)
			s.mu.Unlock()
			msg = smtpMessage{}
			err = reply("250 2.0.0 OK queued")
		case "QUIT":
			_ = reply("221 2.0.0 bye")
			return
		default:
			err = reply("502 5.5.2 command not recognised")
		}
		if err != nil {
			return
		}
	}
}

// address reads FROM:<a@b> or TO:<a@b>.
func address(arg string) string {
	_, a, _ := strings.Cut(arg, ":")
	a, _, _ = strings.Cut(strings.TrimSpace(a), " ") // parameters such as BODY=8BITMIME
	return strings.Trim(a, "<>")
}

func (s *smtpStub) received() ([]string, []smtpMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...), append([]smtpMessage(nil), s.messages...)
}
