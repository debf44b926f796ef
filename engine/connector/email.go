package connector

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// JobTypeEmail sends an e-mail.
const JobTypeEmail = "email.send"

// email runs email.send over SMTP: STARTTLS when the server offers it,
// AUTH PLAIN when a user is configured (net/smtp sends it only over TLS or
// to localhost). Parameters: to (an address, a comma-separated list or a
// list), optional cc, subject, body and html (true: body is HTML).
// Result: {messageId}.
//
// A 4xx reply or a broken connection fails the attempt (it is retried); a
// 5xx reply (an unknown recipient, refused credentials) fails it for good;
// replies are coded SMTP_<reply code>.
type email struct {
	cfg      SMTPConfig
	host     string
	redactor redactor
}

func newEmail(c SMTPConfig) *email {
	host, _, _ := net.SplitHostPort(c.Addr) // validated
	r := newRedactor(c.Password.Reveal())
	if c.User != "" { // AUTH PLAIN's answer, should a server echo it
		r = append(r, base64.StdEncoding.EncodeToString([]byte("\x00"+c.User+"\x00"+c.Password.Reveal())))
	}
	return &email{cfg: c, host: host, redactor: r}
}

func (e *email) Handle(ctx context.Context, job *engine.Job) (map[string]any, error) {
	out, err := e.send(ctx, job)
	if err != nil {
		err = e.redactor.redact(fmt.Errorf("%s task %q: %w", JobTypeEmail, job.ElementID, err))
	}
	return out, err
}

func (e *email) send(ctx context.Context, job *engine.Job) (map[string]any, error) {
	p := params(job)
	to, err := addresses(p, "to")
	if err != nil {
		return nil, err
	}
	if len(to) == 0 {
		return nil, engine.Permanent(errors.New("parameter to is required"))
	}
	cc, err := addresses(p, "cc")
	if err != nil {
		return nil, err
	}
	from, _ := mail.ParseAddress(e.cfg.From) // validated
	id := messageID(job.Key, from.Address)
	msg := compose(from, to, cc, text(p, "subject"), text(p, "body"), text(p, "html") == "true", id)
	if err := e.deliver(ctx, from.Address, append(to, cc...), msg); err != nil {
		return nil, smtpFailure(err)
	}
	return map[string]any{"messageId": id}, nil
}

// deliver speaks SMTP to the configured server; the job's context bounds
// the whole conversation.
func (e *email) deliver(ctx context.Context, from string, rcpts []*mail.Address, msg []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", e.cfg.Addr)
	if err != nil {
		return err
	}
	defer context.AfterFunc(ctx, func() { conn.Close() })()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	c, err := smtp.NewClient(conn, e.host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: e.host, MinVersion: tls.VersionTLS12}); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	}
	if e.cfg.User != "" {
		if err := c.Auth(smtp.PlainAuth("", e.cfg.User, e.cfg.Password.Reveal(), e.host)); err != nil {
			return fmt.Errorf("AUTH as %s: %w", e.cfg.User, err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("MAIL FROM %s: %w", from, err)
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r.Address); err != nil {
			return fmt.Errorf("RCPT TO %s: %w", r.Address, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	return c.Quit()
}

// smtpFailure decides whether a failed delivery is retried.
func smtpFailure(err error) error {
	var reply *textproto.Error
	var netErr net.Error
	switch {
	case errors.As(err, &reply):
		coded := &engine.CodedError{Code: fmt.Sprintf("SMTP_%d", reply.Code), Err: err}
		if reply.Code >= 500 {
			return engine.Permanent(coded)
		}
		return coded
	case errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return err // a connection that failed or broke: try again
	}
	return engine.Permanent(err) // the client refused (no AUTH offered, AUTH without TLS, ...)
}

// addresses reads parameter key: an address, a comma-separated list, or a
// list of addresses.
func addresses(p map[string]any, key string) ([]*mail.Address, error) {
	var list []string
	switch v := p[key].(type) {
	case nil:
		return nil, nil
	case string:
		list = []string{v}
	case []any:
		for _, a := range v {
			list = append(list, textOf(a))
		}
	default:
		return nil, engine.Permanent(fmt.Errorf("parameter %s is %T: give an address or a list of addresses", key, v))
	}
	var out []*mail.Address
	for _, s := range list {
		if strings.TrimSpace(s) == "" {
			continue
		}
		as, err := mail.ParseAddressList(s)
		if err != nil {
			return nil, engine.Permanent(fmt.Errorf("parameter %s: %q: %w", key, s, err))
		}
		out = append(out, as...)
	}
	return out, nil
}

// messageID names the message after the attempt that sends it.
func messageID(jobKey, from string) string {
	sum := sha256.Sum256([]byte(jobKey))
	_, domain, _ := strings.Cut(from, "@")
	return fmt.Sprintf("<%x@%s>", sum[:16], domain)
}

// compose writes the message: headers (non-ASCII encoded) and the body,
// quoted-printable.
func compose(from *mail.Address, to, cc []*mail.Address, subject, body string, html bool, id string) []byte {
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from.String())
	header("To", addressList(to))
	if len(cc) > 0 {
		header("Cc", addressList(cc))
	}
	header("Subject", mime.QEncoding.Encode("utf-8", subject))
	header("Date", time.Now().Format(time.RFC1123Z))
	header("Message-ID", id)
	header("MIME-Version", "1.0")
	if html {
		header("Content-Type", "text/html; charset=utf-8")
	} else {
		header("Content-Type", "text/plain; charset=utf-8")
	}
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(body))
	_ = qp.Close()
	return b.Bytes()
}

func addressList(as []*mail.Address) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}
