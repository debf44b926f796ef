package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// storeServeAddrDefault is MongoDB's usual port, on loopback: the embedded
// server has no authentication.
const storeServeAddrDefault = "127.0.0.1:27017"

// storeCmd runs `wfpp store serve`: the embedded MongoDB-wire store on its
// own, so that several `wfpp serve` replicas on one machine share it through
// WFPP_MONGO_URI (development and tests; production uses MongoDB).
func storeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("store serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: wfpp store serve [--addr HOST:PORT] [--data DIR] [--db NAME] [--sync full|normal]")
		fmt.Fprintln(stderr, "\nRuns the embedded store alone until SIGTERM or Ctrl-C; start the replicas with the WFPP_MONGO_URI it prints.\n\nFlags:")
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] != "serve" {
		fs.Usage()
		return exitUsage
	}
	addr := fs.String("addr", storeServeAddrDefault, "loopback host:port to listen on (port 0: a free one)")
	dataDir := fs.String("data", embedded.DataDirDefault, "data directory (one SQLite file per database)")
	db := fs.String("db", mongoDBDefault, "database the replicas use: prepared at start and named in the printed URI")
	sync := fs.String("sync", os.Getenv("WFPP_SYNC"), "full (default; survives power loss) or normal (survives kill -9, faster); env WFPP_SYNC")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	// FerretDB keeps its default logger: warnings and errors only.
	cfg := embedded.Config{Addr: *addr, DataDir: *dataDir, Sync: embedded.Sync(*sync)}
	if err := serveStore(ctx, cfg, *db, stdout, log); err != nil {
		fmt.Fprintf(stderr, "wfpp store serve: %v\n", err)
		return exitUsage
	}
	return 0
}

// serveStore runs the embedded server until ctx ends. Once it answers, it
// prints the line to give the replicas, WFPP_MONGO_URI=mongodb://ADDR/DB.
func serveStore(ctx context.Context, cfg embedded.Config, db string, stdout io.Writer, log *slog.Logger) (err error) {
	srv, err := embedded.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Close(context.WithoutCancel(ctx))) }()
	if err := prepareDatabase(ctx, srv, db); err != nil {
		return err
	}
	uri := srv.URI() + db
	log.Info("store serving", "uri", uri, "data_dir", srv.DataDir())
	fmt.Fprintf(stdout, "WFPP_MONGO_URI=%s\n", uri)
	<-ctx.Done()
	log.Info("store stopping")
	return nil
}

// prepareDatabase creates the store's collections and rebuilds their _id
// indexes as embedded.IndexByID explains: the replicas look instances up by
// _id on every commit, which would otherwise scan whole tables. The
// replicas' own mongostore.New adds the indexes they need on top.
func prepareDatabase(ctx context.Context, srv *embedded.Server, db string) error {
	client, _, err := connectStore(ctx, srv.URI(), db, mongostore.Config{NoQueryIndexes: true})
	if err != nil {
		return fmt.Errorf("preparing database %s: %w", db, err)
	}
	err = srv.IndexByID(ctx, db)
	return errors.Join(err, client.Disconnect(context.WithoutCancel(ctx)))
}
