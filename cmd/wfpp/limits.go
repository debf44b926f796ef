package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server"
)

// limitVars are the input caps wfpp serve reads from the environment: each
// a count or a size (a number of bytes, or with KiB, MiB or GiB). Unset
// means the default the README gives.
var limitVars = []struct {
	name, doc string
	size      bool
	set       func(*engine.Config, *server.Config, int)
}{
	{
		"WFPP_MAX_BODY", "largest request body (default 10MiB)", true,
		func(_ *engine.Config, s *server.Config, n int) { s.BodyLimit = n },
	},
	{
		"WFPP_MAX_VARIABLE", "largest variable a caller sets, as JSON (default 1MiB)", true,
		func(e *engine.Config, _ *server.Config, n int) { e.MaxVariableBytes = n },
	},
	{
		"WFPP_MAX_INSTANCE_VARIABLES", "all of an instance's variables, as JSON (default 4MiB)", true,
		func(e *engine.Config, _ *server.Config, n int) { e.MaxInstanceVariableBytes = n },
	},
	{
		"WFPP_SCRIPT_MEMORY", "how much the heap may grow under one running script (default 64MiB)", true,
		func(e *engine.Config, _ *server.Config, n int) { e.Script.MaxMemory = int64(n) },
	},
	{
		"WFPP_BPMN_MAX_VALUE", "longest BPMN attribute value or element text (default 64KiB)", true,
		func(e *engine.Config, _ *server.Config, n int) { e.BPMN.MaxValue = n },
	},
	{
		"WFPP_BPMN_MAX_ELEMENTS", "elements in one BPMN file (default 327680)", false,
		func(e *engine.Config, _ *server.Config, n int) { e.BPMN.MaxElements = n },
	},
	{
		"WFPP_BPMN_MAX_ATTRIBUTES", "attributes in one BPMN file (default 4 x the elements)", false,
		func(e *engine.Config, _ *server.Config, n int) { e.BPMN.MaxAttributes = n },
	},
	{
		"WFPP_MAX_CHAIN_DEPTH", "instances a chain of triggers starts one after another (default 10)", false,
		func(e *engine.Config, _ *server.Config, n int) { e.MaxChainDepth = n },
	},
	{
		"WFPP_BPMN_MAX_DEPTH", "nesting of elements in one BPMN file (default 200)", false,
		func(e *engine.Config, _ *server.Config, n int) { e.BPMN.MaxDepth = n },
	},
}

// applyLimits sets the caps the environment names on the two configs.
func applyLimits(getenv func(string) string, eng *engine.Config, srv *server.Config) error {
	for _, v := range limitVars {
		raw := strings.TrimSpace(getenv(v.name))
		if raw == "" {
			continue
		}
		n, err := parseLimit(raw, v.size)
		if err != nil {
			return fmt.Errorf("%s=%q: %w", v.name, raw, err)
		}
		v.set(eng, srv, n)
	}
	return nil
}

func parseLimit(s string, size bool) (int, error) {
	mult := 1
	if size {
		for _, u := range []struct {
			suffix string
			mult   int
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if rest, ok := strings.CutSuffix(s, u.suffix); ok {
				s, mult = strings.TrimSpace(rest), u.mult
				break
			}
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > (1<<40)/mult {
		if size {
			return 0, fmt.Errorf("want a positive size such as 1048576, 64KiB or 4MiB")
		}
		return 0, fmt.Errorf("want a positive whole number")
	}
	return n * mult, nil
}
