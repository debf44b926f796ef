// Command wfpp is the Workflow++ binary: `wfpp run`, `wfpp validate` and
// `wfpp bench`. It only wires packages together; the work is in engine/.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

const usage = `wfpp — the Workflow++ BPMN engine

Usage:
  wfpp validate FILE...          check definitions; one line per problem: FILE: ELEMENT_ID: message
  wfpp run FILE [flags]          run one instance in memory and print the outcome as JSON
  wfpp bench [flags]             measure the engine (--store memory|embedded|mongo)
  wfpp serve [--addr HOST:PORT]  serve the REST API (env WFPP_ADDR, default :8080)
  wfpp store serve [flags]       run the embedded store alone, for several replicas on one machine
  wfpp help                      show this text

Run 'wfpp COMMAND -h' for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	switch args[0] {
	case "validate":
		return validateCmd(args[1:], stdout, stderr)
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr)
	case "bench":
		return benchCmd(ctx, args[1:], stdout, stderr)
	case "serve":
		return serveCmd(ctx, args[1:], stdout, stderr)
	case "store":
		return storeCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "wfpp: unknown command %q\n\n%s", args[0], usage)
	return 1
}
