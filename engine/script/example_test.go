package script_test

import (
	"context"
	"fmt"

	"github.com/workflowpp/wfpp/engine/script"
)

func ExampleEvaluator_EvalBool() {
	e, err := script.NewEvaluator(script.Config{})
	if err != nil {
		panic(err)
	}
	vars := map[string]any{"amount": 150, "approved": true}
	for _, cond := range []string{"amount > 100", "=amount > 100 and approved", "${amount lt 100}"} {
		p, err := script.CompileExpression(cond)
		if err != nil {
			panic(err)
		}
		ok, err := e.EvalBool(context.Background(), p, vars)
		fmt.Println(cond, ok, err)
	}
	// Output:
	// amount > 100 true <nil>
	// =amount > 100 and approved true <nil>
	// ${amount lt 100} false <nil>
}

func ExampleEvaluator_RunScript() {
	e, err := script.NewEvaluator(script.Config{})
	if err != nil {
		panic(err)
	}
	p, err := script.CompileScript(`
const discount = order.total > 100 ? 0.1 : 0;
if (order.vip) {
  return {discount: 0.2};
}
({discount})`)
	if err != nil {
		panic(err)
	}
	res, err := e.RunScript(context.Background(), p, map[string]any{
		"order": map[string]any{"total": 250.0, "vip": false},
	})
	fmt.Println(res, err)
	// Output: map[discount:0.1] <nil>
}
