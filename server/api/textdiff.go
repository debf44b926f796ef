package api

import (
	"fmt"
	"strings"
)

// diffCellsMax bounds the line-diff table; larger sources get one hunk that
// replaces everything that differs between the common head and tail.
const diffCellsMax = 16 << 20

const diffContext = 3

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// unifiedDiff returns the unified diff of a and b ("" when equal), with
// three lines of context, as diff -u prints it.
func unifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	// Walk the ops, cutting hunks around changes.
	i := 0
	lineA, lineB := 1, 1
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i, lineA, lineB = i+1, lineA+1, lineB+1
			continue
		}
		start := max(i-diffContext, 0)
		for j := start; j < i; j++ { // context before
			lineA--
			lineB--
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = run
		}
		countA, countB := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				countA++
			}
			if op.kind != '-' {
				countB++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(lineA, countA), hunkRange(lineB, countB))
		for _, op := range ops[start:end] {
			sb.WriteByte(op.kind)
			sb.WriteString(op.line)
			sb.WriteByte('\n')
		}
		lineA += countA
		lineB += countB
		i = end
	}
	return sb.String()
}

func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines is a longest-common-subsequence line diff.
func diffLines(a, b []string) []diffOp {
	var head, tail []diffOp
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		head = append(head, diffOp{' ', a[0]})
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		tail = append(tail, diffOp{' ', a[len(a)-1]})
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	var mid []diffOp
	if len(a)*len(b) > diffCellsMax {
		for _, l := range a {
			mid = append(mid, diffOp{'-', l})
		}
		for _, l := range b {
			mid = append(mid, diffOp{'+', l})
		}
	} else {
		mid = lcsDiff(a, b)
	}
	out := make([]diffOp, 0, len(head)+len(mid)+len(tail))
	out = append(append(out, head...), mid...)
	for i := len(tail) - 1; i >= 0; i-- {
		out = append(out, tail[i])
	}
	return out
}

func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	// lcs[i][j] is the LCS length of a[i:] and b[j:], in one flat slice.
	lcs := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return lcs[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				lcs[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	var out []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case at(i+1, j) >= at(i, j+1):
			out = append(out, diffOp{'-', a[i]})
			i++
		default:
			out = append(out, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffOp{'+', b[j]})
	}
	return out
}
