package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
)

// sampleBPMN is deployed on first start so a fresh server has a process.
//
//go:embed sample/approval.bpmn
var sampleBPMN []byte

// serveAddrDefault is where wfpp serve listens without --addr or WFPP_ADDR.
const serveAddrDefault = ":8080"

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envOr("WFPP_ADDR", serveAddrDefault), "address to listen on (env WFPP_ADDR)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: wfpp serve [--addr HOST:PORT]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	log := slog.New(slog.NewTextHandler(stdout, nil))
	if err := serve(ctx, *addr, log); err != nil {
		fmt.Fprintf(stderr, "wfpp serve: %v\n", err)
		return exitUsage
	}
	return 0
}

// openStore is the one place that picks the store wfpp serve runs on.
// TODO: switch to the durable embedded store once it lands.
func openStore() (engine.Store, error) { return memstore.New(), nil }

func serve(ctx context.Context, addr string, log *slog.Logger) error {
	store, err := openStore()
	if err != nil {
		return fmt.Errorf("opening store: %w", err)
	}
	eng, err := engine.New(engine.Config{Store: store, Logger: log})
	if err != nil {
		return err
	}
	if err := eng.Run(ctx); err != nil {
		return fmt.Errorf("starting engine: %w", err)
	}
	defer eng.Close()
	if err := deploySample(ctx, eng, log); err != nil {
		return err
	}
	srv, err := server.New(server.Config{Engine: eng, Logger: log})
	if err != nil {
		return err
	}
	return srv.Listen(ctx, addr)
}

// deploySample deploys the sample process when no definition has its key.
func deploySample(ctx context.Context, eng *engine.Engine, log *slog.Logger) error {
	rec, created, err := eng.Deploy(ctx, engine.DeployRequest{Source: sampleBPMN, Format: engine.FormatBPMN, Deployer: "wfpp serve"})
	if err != nil && !errors.Is(err, engine.ErrDuplicate) {
		return fmt.Errorf("deploying the sample process: %w", err)
	}
	if created {
		log.Info("sample process deployed", "definition_id", rec.ID)
	}
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
