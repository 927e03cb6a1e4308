package policy

import "strings"

// Code is the outcome class of a plugin call.
type Code int

// Status codes. Skip means "this policy has nothing to say" (a decision, not
// a failure); Error means the policy failed and its output is discarded.
const (
	Success Code = iota
	Skip
	Error
)

func (c Code) String() string {
	switch c {
	case Success:
		return "Success"
	case Skip:
		return "Skip"
	case Error:
		return "Error"
	}
	return "Unknown"
}

// Status is the result of a plugin call. A nil *Status means Success.
type Status struct {
	code    Code
	reasons []string
	err     error
}

// NewStatus returns a Status with the given code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps an error as an Error status; nil gives nil (Success).
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the status code; a nil Status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether the call succeeded.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// Err returns the error of an Error status, or nil.
func (s *Status) Err() error {
	if s == nil || s.code != Error {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errorString(s.Message())
}

// Message joins the reasons.
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

type errorString string

func (e errorString) Error() string { return string(e) }
