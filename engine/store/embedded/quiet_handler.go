package embedded

import (
	"context"
	"log/slog"
	"strings"
)

// quietHandler passes on warnings and errors only, and drops FerretDB's
// warning-level dumps of failed command responses ("Response header: ...",
// "Response message: ..."): the client gets those errors anyway, and some are
// normal control flow for the store (duplicate keys) or the driver
// (endSessions, which FerretDB does not implement, on every Disconnect).
type quietHandler struct{ slog.Handler }

func (h quietHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.Handler.Enabled(ctx, level)
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError && strings.HasPrefix(r.Message, "Response ") {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(attrs)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}
