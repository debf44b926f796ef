package connector

import (
	"encoding/json"
	"log/slog"
	"strings"
)

// Secret is a credential. It prints, logs and marshals as "[redacted]", so
// a config that ends up in a log or an error shows no credential; Reveal
// gives the value to the one place that sends it.
type Secret string

const redacted = "[redacted]"

func (s Secret) String() string { return redacted }

// LogValue keeps the value out of slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON keeps the value out of JSON output.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(redacted) }

// Reveal returns the credential, to be sent to the service it is for.
func (s Secret) Reveal() string { return string(s) }

// redactor hides credentials in error messages: a remote service may echo
// what it was sent (the Authorization header, a token in a body) in the
// answer a failure quotes.
type redactor []string

// redact returns err with every credential in its message replaced; the
// original stays in the chain, so errors.Is and errors.As still see the
// outcome (Permanent, RetryAfter, CodedError) it carries.
func (r redactor) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range r {
		msg = strings.ReplaceAll(msg, s, redacted)
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// newRedactor hides each non-empty credential given.
func newRedactor(secrets ...string) redactor {
	var r redactor
	for _, s := range secrets {
		if s != "" {
			r = append(r, s)
		}
	}
	return r
}
