package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/runner"
)

// Exit codes of wfpp run.
const (
	exitCompleted = 0
	exitUsage     = 1
	exitWaiting   = 2
	exitIncident  = 3
)

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		vars, taskVars, messages, signals, jobs string
		deploys                                 deployFiles
		o                                       runner.Options
	)
	fs.StringVar(&vars, "vars", "", "instance variables as a JSON object")
	fs.StringVar(&o.ProcessID, "process", "", "id of the process to run (default: the main one)")
	fs.BoolVar(&o.CompleteTasks, "complete-tasks", false, "complete every user task as it appears")
	fs.StringVar(&taskVars, "task-vars", "", "variables (JSON object) each task completion sets")
	fs.StringVar(&messages, "messages", "", `messages to deliver, JSON: [{"name","correlationKey","variables"}]`)
	fs.StringVar(&signals, "signals", "", `signals to broadcast, each once something waits for it, JSON: [{"name","variables"}]`)
	fs.Var(&deploys, "deploy", "a definition or form to deploy first, such as a called process (repeatable)")
	fs.StringVar(&jobs, "jobs", "noop", "service tasks without a handler (built-in or connector): noop completes them, strict leaves them waiting")
	fs.DurationVar(&o.Timeout, "timeout", time.Minute, "give up after this long (real time)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: wfpp run FILE [--deploy FILE]... [--vars JSON] [--process ID] [--complete-tasks] [--task-vars JSON] [--messages JSON] [--signals JSON] [--jobs noop|strict] [--timeout DURATION]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\nConnectors configured in the environment (see wfpp serve -h) do their tasks' work; --jobs says what happens to the rest.")
	}
	file, rest := splitFile(args)
	if err := fs.Parse(rest); err != nil {
		return exitUsage
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
	}
	if file == "" {
		fs.Usage()
		return exitUsage
	}
	for _, p := range []struct {
		flag, text string
		into       any
	}{{"--vars", vars, &o.Variables}, {"--task-vars", taskVars, &o.TaskVariables}, {"--messages", messages, &o.Messages}, {"--signals", signals, &o.Signals}} {
		if p.text == "" {
			continue
		}
		if err := json.Unmarshal([]byte(p.text), p.into); err != nil {
			fmt.Fprintf(stderr, "wfpp run: %s is not valid JSON: %v\n", p.flag, err)
			return exitUsage
		}
	}
	switch jobs {
	case "noop":
	case "strict":
		o.Strict = true
	default:
		fmt.Fprintf(stderr, "wfpp run: --jobs is %q: use noop or strict\n", jobs)
		return exitUsage
	}
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "wfpp run: %v\n", err)
		return exitUsage
	}
	for _, f := range deploys {
		more, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "wfpp run: --deploy: %v\n", err)
			return exitUsage
		}
		o.Deploy = append(o.Deploy, more)
	}
	if o.Handlers, err = connectorHandlers(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "wfpp run: %v\n", err)
		return exitUsage
	}
	res, err := runner.Run(ctx, src, o)
	if err != nil {
		var probs model.Problems
		if errors.As(err, &probs) {
			for _, p := range probs {
				fmt.Fprintf(stderr, "%s: %s: %s\n", file, p.ElementID, p.Message)
			}
		} else {
			fmt.Fprintf(stderr, "wfpp run: %s: %v\n", file, err)
		}
		return exitUsage
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		fmt.Fprintf(stderr, "wfpp run: %v\n", err)
		return exitUsage
	}
	switch engine.Status(res.Status) {
	case engine.StatusCompleted:
		return exitCompleted
	case engine.StatusWaiting:
		return exitWaiting
	}
	return exitIncident
}

// deployFiles collects the --deploy flags.
type deployFiles []string

func (d *deployFiles) String() string { return strings.Join(*d, ",") }

func (d *deployFiles) Set(v string) error {
	*d = append(*d, v)
	return nil
}

// splitFile lets FILE come before the flags, as the usage line shows.
func splitFile(args []string) (string, []string) {
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		return args[0], args[1:]
	}
	return "", args
}
