package hdfslocality

import (
	"errors"
	"fmt"
	"os"
)

// Error is the type of the package's sentinel errors; they are constants so
// that the package has no variables.
type Error string

func (e Error) Error() string { return string(e) }

// ErrUnavailable matches (errors.Is) failures where no NameNode answered:
// connection errors, timeouts, every HA NameNode in standby.
const ErrUnavailable = Error("hdfslocality: NameNode unavailable")

// ErrClosed is returned after Close.
const ErrClosed = Error("hdfslocality: resolver closed")

// RemoteError is a Java exception returned by the NameNode as WebHDFS
// RemoteException JSON.
type RemoteError struct {
	Addr          string // NameNode HTTP address that answered
	Status        int    // HTTP status
	Exception     string // short name, e.g. FileNotFoundException
	JavaClassName string // e.g. java.io.FileNotFoundException
	Message       string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("namenode %s: HTTP %d: %s: %s", e.Addr, e.Status, e.JavaClassName, e.Message)
}

// Is maps the exceptions callers act on to the os errors colinmarc also
// uses, so one errors.Is check works for both namespace and block errors.
func (e *RemoteError) Is(target error) bool {
	switch target {
	case os.ErrNotExist:
		return e.JavaClassName == "java.io.FileNotFoundException" || e.Exception == "FileNotFoundException"
	case os.ErrPermission:
		return e.JavaClassName == "org.apache.hadoop.security.AccessControlException" || e.Exception == "AccessControlException"
	}
	return false
}

// standby reports exceptions after which the next HA NameNode should be
// tried: this one is not (or not yet) the active NameNode.
func (e *RemoteError) standby() bool {
	switch e.JavaClassName {
	case "org.apache.hadoop.ipc.StandbyException", "org.apache.hadoop.ipc.RetriableException":
		return true
	}
	switch e.Exception {
	case "StandbyException", "RetriableException":
		return true
	}
	return false
}

// unavailableError carries every failed attempt of one call.
type unavailableError struct{ attempts []error }

func (e *unavailableError) Error() string {
	return fmt.Sprintf("%s: %v", ErrUnavailable, errors.Join(e.attempts...))
}

func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

func (e *unavailableError) Unwrap() []error { return e.attempts }

// errorReason classifies an error for the errors_total metric and decides
// whether it starts an outage (only "unavailable" does).
func errorReason(err error) string {
	var re *RemoteError
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "not_found"
	case errors.Is(err, os.ErrPermission):
		return "permission"
	case errors.As(err, &re):
		return "remote"
	default:
		return "unavailable"
	}
}
