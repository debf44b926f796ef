package script

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is. Every error returned by an Evaluator wraps
// one of them (or a context error when ctx ends first).
var (
	// ErrTimeout: the time budget ran out; the script was interrupted.
	ErrTimeout = errors.New("script: time budget exceeded")
	// ErrMemory: the script allocated past Config.MaxMemory; it was interrupted.
	ErrMemory = errors.New("script: memory budget exceeded")
	// ErrStackOverflow: the call depth exceeded Config.MaxCallStackSize.
	ErrStackOverflow = errors.New("script: call stack size exceeded")
	// ErrLimit: an input, output or string exceeded a configured size limit.
	ErrLimit = errors.New("script: size limit exceeded")
	// ErrResult: the result is not of the required kind (not a boolean for
	// a condition, not a JSON value).
	ErrResult = errors.New("script: unusable result")
	// ErrRuntime: the code threw (TypeError, ReferenceError, throw ...).
	ErrRuntime = errors.New("script: evaluation failed")
)

// CompileError is returned when an expression or script does not compile.
// Line and Column are 1-based and point into Text (columns count runes).
type CompileError struct {
	Text    string
	Line    int
	Column  int
	Message string
}

func (e *CompileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("compiling %s: %s", quoteShort(e.Text), e.Message)
	}
	return fmt.Sprintf("compiling %s: line %d, column %d: %s", quoteShort(e.Text), e.Line, e.Column, e.Message)
}

// quoteShort quotes text for messages, cut to a readable length.
func quoteShort(text string) string {
	const maxLen = 80
	if r := []rune(text); len(r) > maxLen {
		return fmt.Sprintf("%q...", string(r[:maxLen]))
	}
	return fmt.Sprintf("%q", text)
}

// newCompileError builds a CompileError positioned at byte offset off of text
// (off < 0: no position).
func newCompileError(text string, off int, format string, args ...any) *CompileError {
	e := &CompileError{Text: text, Message: fmt.Sprintf(format, args...)}
	if off >= 0 {
		e.Line, e.Column = position(text, off)
	}
	return e
}

// position converts a byte offset into a 1-based line and rune column.
func position(text string, off int) (line, col int) {
	off = min(max(off, 0), len(text))
	line, col = 1, 1
	for _, r := range text[:off] {
		if r == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return line, col
}
