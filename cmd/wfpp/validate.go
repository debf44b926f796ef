package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// validateCmd: exit 0 when every file is valid, else 1 with one line per
// problem as FILE: ELEMENT_ID: message.
func validateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "Usage: wfpp validate FILE...") }
	if err := fs.Parse(args); err != nil {
		return 1
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 1
	}
	code := 0
	for _, file := range fs.Args() {
		for _, p := range validateFile(file) {
			fmt.Fprintf(stdout, "%s: %s: %s\n", file, p.ElementID, p.Message)
			code = 1
		}
	}
	return code
}

func validateFile(file string) model.Problems {
	src, err := os.ReadFile(file)
	if err != nil {
		return model.Problems{{Message: err.Error()}}
	}
	_, err = engine.ParseAndValidate(src, "")
	var probs model.Problems
	switch {
	case err == nil:
		return nil
	case errors.As(err, &probs):
		return probs
	}
	return model.Problems{{Message: err.Error()}}
}
