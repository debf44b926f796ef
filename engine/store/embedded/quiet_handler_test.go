package embedded

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestQuietHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(quietHandler{base: slog.NewTextHandler(&buf, nil)})

	l := log.With("conn", "c1").WithGroup("sql").With("q", "UPDATE")
	l.Debug("statement")                           // below warn: dropped
	l.Warn("Response header: ...")                 // a failed command's dump: dropped
	l.Warn("slow statement", "ms", 120)            // kept, with what With and WithGroup added
	log.Error("Response message: boom", "code", 1) // errors always pass

	got := buf.String()
	for _, want := range []string{
		`level=WARN msg="slow statement" conn=c1 sql.q=UPDATE sql.ms=120`,
		`level=ERROR msg="Response message: boom" code=1`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 2 {
		t.Errorf("%d lines logged, want 2:\n%s", n, got)
	}
}
