package yarnclient

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrStandby is wrapped by errors caused by a standby ResourceManager answer
// ("This is standby RM" or a 307 redirect). Seeing it from a call means no
// configured RM was active within the attempt budget.
var ErrStandby = errors.New("resourcemanager is in standby")

// ErrAMUnavailable is wrapped when the RM web proxy cannot reach the
// MapReduce ApplicationMaster: the app has not started its AM yet, or it has
// finished and the proxy redirects to the history server.
var ErrAMUnavailable = errors.New("mapreduce application master not reachable through the RM proxy")

// RemoteException is the error body Hadoop web services send with a non-2xx
// status: {"RemoteException":{"exception":..,"message":..,"javaClassName":..}}.
type RemoteException struct {
	Exception     string `json:"exception" xml:"exception"`
	Message       string `json:"message" xml:"message"`
	JavaClassName string `json:"javaClassName" xml:"javaClassName"`
}

// HTTPError is a non-2xx answer from the RM (or the AM behind its proxy).
type HTTPError struct {
	Op         string // client operation, e.g. "UpdateNodeResource"
	Method     string
	URL        string
	StatusCode int
	// Remote is the parsed RemoteException, nil when the body had none.
	Remote *RemoteException
	// Body is the start of the response body when it was not a RemoteException.
	Body string
	// RetryAfter is the server's Retry-After header, if any.
	RetryAfter string
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "yarnclient: %s: %s %s: HTTP %d %s", e.Op, e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	switch {
	case e.Remote != nil:
		fmt.Fprintf(&b, ": %s: %s", e.Remote.Exception, e.Remote.Message)
	case e.Body != "":
		fmt.Fprintf(&b, ": %s", e.Body)
	}
	return b.String()
}

// StatusCode returns the HTTP status of the first *HTTPError in err's chain,
// or 0 when there is none.
func StatusCode(err error) int {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is an RM/AM answer of 404 (unknown app,
// node, container, job...).
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsForbidden reports whether err is a 401 or 403 answer: missing user.name,
// failed SPNEGO, or an ACL refusal.
func IsForbidden(err error) bool {
	s := StatusCode(err)
	return s == http.StatusUnauthorized || s == http.StatusForbidden
}

const maxErrorBody = 512

func newHTTPError(op, method, u string, resp *http.Response, body []byte) *HTTPError {
	e := &HTTPError{Op: op, Method: method, URL: u, StatusCode: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	e.Remote = parseRemoteException(body)
	if e.Remote == nil {
		s := strings.TrimSpace(string(body))
		if len(s) > maxErrorBody {
			s = s[:maxErrorBody] + "..."
		}
		e.Body = s
	}
	return e
}

func parseRemoteException(body []byte) *RemoteException {
	trimmed := strings.TrimSpace(string(body))
	switch {
	case strings.HasPrefix(trimmed, "{"):
		var w struct {
			RemoteException *RemoteException `json:"RemoteException"`
		}
		if json.Unmarshal(body, &w) == nil && w.RemoteException != nil && (w.RemoteException.Exception != "" || w.RemoteException.Message != "") {
			return w.RemoteException
		}
	case strings.HasPrefix(trimmed, "<"):
		var x struct {
			XMLName xml.Name `xml:"RemoteException"`
			RemoteException
		}
		if xml.Unmarshal(body, &x) == nil && (x.Exception != "" || x.Message != "") {
			re := x.RemoteException
			return &re
		}
	}
	return nil
}
