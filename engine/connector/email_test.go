package connector_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/connector"
)

const smtpPassword = "smtp-secret-pw"

func emailHandlers(t *testing.T, addr string) map[string]engine.Handler {
	t.Helper()
	hs, err := connector.Handlers(connector.Config{SMTP: connector.SMTPConfig{
		Addr: addr, User: "wfpp", Password: smtpPassword, From: "Workflow++ <wfpp@example.com>",
	}})
	require.NoError(t, err)
	return hs
}

// TestEmailSend: the message reaches the SMTP server after AUTH PLAIN, for
// every to and cc recipient, with its headers encoded and its HTML body;
// the result names it.
func TestEmailSend(t *testing.T) {
	t.Parallel()
	srv := newSMTPStub(t, nil, nil)
	out, err := handle(t, emailHandlers(t, srv.Addr)[connector.JobTypeEmail], map[string]any{
		"to": []any{"ann@example.com", "Bob <bob@example.com>"}, "cc": "carol@example.com",
		"subject": "Grüße: 3 items in progress", "body": "<p>Found <b>3</b> items — see the board.</p>", "html": true,
	})
	require.NoError(t, err)
	id, _ := out["messageId"].(string)
	require.Regexp(t, `^<[0-9a-f]{32}@example\.com>$`, id)

	auth, msgs := srv.received()
	require.Equal(t, []string{"\x00wfpp\x00" + smtpPassword}, auth)
	require.Len(t, msgs, 1)
	require.Equal(t, "wfpp@example.com", msgs[0].From)
	require.Equal(t, []string{"ann@example.com", "bob@example.com", "carol@example.com"}, msgs[0].To)

	m, err := mail.ReadMessage(strings.NewReader(msgs[0].Data))
	require.NoError(t, err)
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	require.NoError(t, err)
	require.Equal(t, "Grüße: 3 items in progress", subject)
	require.Equal(t, `"Workflow++" <wfpp@example.com>`, m.Header.Get("From"))
	require.Equal(t, `<ann@example.com>, "Bob" <bob@example.com>`, m.Header.Get("To"))
	require.Equal(t, "<carol@example.com>", m.Header.Get("Cc"))
	require.Equal(t, id, m.Header.Get("Message-ID"))
	require.Equal(t, "text/html; charset=utf-8", m.Header.Get("Content-Type"))
	body, err := io.ReadAll(quotedprintable.NewReader(m.Body))
	require.NoError(t, err)
	require.Equal(t, "<p>Found <b>3</b> items — see the board.</p>", strings.TrimSuffix(string(body), "\n"), "the line end is DATA's")

	_, err = handle(t, emailHandlers(t, srv.Addr)[connector.JobTypeEmail], map[string]any{"subject": "nobody"})
	require.ErrorContains(t, err, "parameter to is required")
	_, err = handle(t, emailHandlers(t, srv.Addr)[connector.JobTypeEmail], map[string]any{"to": "not an address"})
	require.ErrorContains(t, err, `parameter to: "not an address"`)
	_, msgs = srv.received()
	require.Len(t, msgs, 1, "bad parameters send nothing")
}

// TestEmailFailures: a 5xx reply fails for good, a 4xx reply is retried,
// both coded with the reply; the password never shows, though the server
// echoes it.
func TestEmailFailures(t *testing.T) {
	t.Parallel()
	srv := newSMTPStub(t, map[string]string{
		"nobody@example.com": "550 5.1.1 no mailbox here (you are %s)",
		"later@example.com":  "451 4.3.0 try again later (you are %s)",
	}, nil)
	res := runTask(t, emailHandlers(t, srv.Addr), connector.JobTypeEmail, map[string]any{"to": "nobody@example.com", "subject": "s", "body": "b"})
	failedWith(t, res, "SMTP_550", 1)
	require.Contains(t, res.Variables["errorMessage"], "RCPT TO nobody@example.com: 550")
	require.Contains(t, res.Variables["errorMessage"], "no mailbox here (you are /wfpp/[redacted])")
	noSecret(t, res, smtpPassword)

	res = runTask(t, emailHandlers(t, srv.Addr), connector.JobTypeEmail, map[string]any{"to": "later@example.com", "subject": "s", "body": "b"})
	failedWith(t, res, "SMTP_451", 3)
	noSecret(t, res, smtpPassword)
	_, msgs := srv.received()
	require.Empty(t, msgs)
}

// TestEmailStartTLS: a server that offers STARTTLS gets it, and one whose
// certificate does not verify gets nothing more, least of all the
// password: the task fails for good.
func TestEmailStartTLS(t *testing.T) {
	t.Parallel()
	srv := newSMTPStub(t, nil, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}, MinVersion: tls.VersionTLS12})
	res := runTask(t, emailHandlers(t, srv.Addr), connector.JobTypeEmail, map[string]any{"to": "ann@example.com", "subject": "s", "body": "b"})
	failedWith(t, res, "", 1)
	require.Contains(t, res.Variables["errorMessage"], "STARTTLS: tls: failed to verify certificate")
	auth, msgs := srv.received()
	require.Empty(t, auth, "no AUTH over an unverified connection")
	require.Empty(t, msgs)
}

// selfSigned is a certificate for 127.0.0.1 that no one trusts.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "stub"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
