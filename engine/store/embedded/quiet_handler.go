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
//
// FerretDB derives a logger (Logger.With) for every SQL statement it runs.
// The handler only remembers those attributes and groups, and applies them
// to the real handler when a record gets through: formatting them up front
// cost 6 % of the embedded store's CPU.
type quietHandler struct {
	base slog.Handler
	with []func(slog.Handler) slog.Handler // WithAttrs and WithGroup calls, in order
}

func (h quietHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.base.Enabled(ctx, level)
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError && strings.HasPrefix(r.Message, "Response ") {
		return nil
	}
	out := h.base
	for _, w := range h.with {
		out = w(out)
	}
	return out.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.then(func(b slog.Handler) slog.Handler { return b.WithAttrs(attrs) })
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return h.then(func(b slog.Handler) slog.Handler { return b.WithGroup(name) })
}

func (h quietHandler) then(w func(slog.Handler) slog.Handler) quietHandler {
	return quietHandler{base: h.base, with: append(h.with[:len(h.with):len(h.with)], w)}
}
