package yarnclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Defaults used when the matching Config field is zero.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxAttempts  = 5
	DefaultBaseBackoff  = 200 * time.Millisecond
	DefaultMaxBackoff   = 10 * time.Second
	DefaultMaxBodyBytes = 64 << 20
)

// standbyMarker is the text a standby RM puts in the page it serves instead of
// the REST answer (RMWebAppFilter).
const standbyMarker = "This is standby RM"

// Config configures a Client. Only RMURLs is required.
type Config struct {
	// RMURLs are the web addresses of every ResourceManager of the cluster,
	// e.g. ["http://rm1:8088", "http://rm2:8088"]. With RM HA, list them all.
	RMURLs []string
	// User is sent as user.name on every request (simple auth). Ignored when
	// SPNEGO is set.
	User string
	// SPNEGO, when set, authenticates with Kerberos instead of user.name.
	SPNEGO *SPNEGOConfig
	// Timeout bounds each HTTP attempt (connect, request, whole body).
	Timeout time.Duration
	// MaxAttempts bounds the attempts of one call, failovers included.
	MaxAttempts int
	// BaseBackoff and MaxBackoff shape the exponential backoff with full
	// jitter: before retry n the client sleeps rand[0,1) x min(MaxBackoff,
	// BaseBackoff x 2^n).
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	// MaxBodyBytes caps a response body; larger answers are an error.
	MaxBodyBytes int64
	// Transport is the HTTP transport; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Logger receives retry and failover events. The zero value logs nothing.
	Logger zerolog.Logger

	// Rand returns a float in [0,1) for the jitter; nil means math/rand/v2.
	// Tests inject a fixed source.
	Rand func() float64
	// Sleep waits d or until ctx is done; nil means a timer. Tests inject a
	// recorder.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client talks to the ResourceManager REST API and, through the RM web proxy,
// to MapReduce ApplicationMasters. It is safe for concurrent use.
type Client struct {
	bases       []*url.URL
	user        string
	hc          *http.Client
	spnego      bool
	timeout     time.Duration
	maxAttempts int
	baseBackoff time.Duration
	maxBackoff  time.Duration
	maxBody     int64
	log         zerolog.Logger
	rnd         func() float64
	sleep       func(ctx context.Context, d time.Duration) error

	active atomic.Int32 // index into bases of the RM that answered last
}

// New validates cfg and returns a Client. It does not contact the RM (nor the
// KDC: SPNEGO logs in lazily on the first 401).
func New(cfg Config) (*Client, error) {
	if len(cfg.RMURLs) == 0 {
		return nil, errors.New("yarnclient: config: RMURLs is empty")
	}
	c := &Client{
		user:        cfg.User,
		timeout:     orDur(cfg.Timeout, DefaultTimeout),
		maxAttempts: cfg.MaxAttempts,
		baseBackoff: orDur(cfg.BaseBackoff, DefaultBaseBackoff),
		maxBackoff:  orDur(cfg.MaxBackoff, DefaultMaxBackoff),
		maxBody:     cfg.MaxBodyBytes,
		log:         cfg.Logger,
		rnd:         cfg.Rand,
		sleep:       cfg.Sleep,
	}
	if c.maxAttempts <= 0 {
		c.maxAttempts = DefaultMaxAttempts
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxBodyBytes
	}
	if c.rnd == nil {
		c.rnd = rand.Float64
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	for i, raw := range cfg.RMURLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("yarnclient: config: RMURLs[%d] %q: %w", i, raw, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("yarnclient: config: RMURLs[%d] %q: want http(s)://host:port", i, raw)
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawQuery, u.Fragment = "", ""
		c.bases = append(c.bases, u)
	}
	rt := cfg.Transport
	if rt == nil {
		rt = http.DefaultTransport.(*http.Transport).Clone()
	}
	jar, _ := cookiejar.New(nil) // never fails with nil options
	if cfg.SPNEGO != nil {
		neg, err := newSPNEGOTransport(*cfg.SPNEGO, rt)
		if err != nil {
			return nil, err
		}
		rt = neg
		c.spnego = true
	}
	c.hc = &http.Client{
		Transport: rt,
		Jar:       jar, // keeps the hadoop.auth cookie
		// Redirects are answers to inspect, not to follow: a standby RM
		// redirects REST calls, the proxy redirects finished apps.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// ActiveRM returns the base URL of the RM that answered last (the first
// configured one before any call).
func (c *Client) ActiveRM() string { return c.bases[int(c.active.Load())].String() }

func orDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// call describes one logical operation.
type call struct {
	op     string
	method string
	path   string // starting with "/", appended to the RM base URL
	query  url.Values
	body   any // marshalled as JSON when non-nil
	out    any // JSON-decoded from a 2xx body when non-nil
	// proxy marks AM calls through /proxy/{appId}: there a redirect means
	// the AM is gone, not that the RM is standby.
	proxy bool
}

type outcome int

const (
	outOK        outcome = iota
	outFatal             // return the error
	outFailover          // try the next RM
	outRetrySame         // back off, same RM
)

type result struct {
	kind       outcome
	err        error
	status     int
	body       []byte
	redirectTo int           // index of the RM a standby pointed to, -1 if none
	wait       time.Duration // server-requested minimum wait
}

// do runs c with retries and RM failover and returns the final HTTP status.
func (c *Client) do(ctx context.Context, cl *call) (int, error) {
	var payload []byte
	if cl.body != nil {
		b, err := json.Marshal(cl.body)
		if err != nil {
			return 0, fmt.Errorf("yarnclient: %s: encode request: %w", cl.op, err)
		}
		payload = b
	}
	n := len(c.bases)
	idx := int(c.active.Load())
	tried, backoffN := 0, 0
	var lastErr error
	for attempt := 1; attempt <= c.maxAttempts; attempt++ {
		r := c.once(ctx, idx, cl, payload)
		switch r.kind {
		case outOK:
			if int(c.active.Load()) != idx {
				c.log.Info().Str("rm", c.bases[idx].String()).Str("op", cl.op).Msg("yarnclient: active resourcemanager changed")
				c.active.Store(int32(idx))
			}
			if cl.out != nil && len(bytes.TrimSpace(r.body)) > 0 {
				if err := json.Unmarshal(r.body, cl.out); err != nil {
					return r.status, fmt.Errorf("yarnclient: %s: %s %s: decode response: %w", cl.op, cl.method, c.urlFor(idx, cl), err)
				}
			}
			return r.status, nil
		case outFatal:
			return r.status, r.err
		}
		lastErr = r.err
		if attempt == c.maxAttempts {
			break
		}
		var wait time.Duration
		switch r.kind {
		case outFailover:
			next := (idx + 1) % n
			if r.redirectTo >= 0 {
				next = r.redirectTo
			}
			tried++
			if tried >= n {
				wait = c.backoff(backoffN)
				backoffN++
				tried = 0
			}
			c.log.Warn().Err(r.err).Str("op", cl.op).Str("from", c.bases[idx].String()).Str("to", c.bases[next].String()).Dur("wait", wait).Int("attempt", attempt).Msg("yarnclient: failing over")
			idx = next
		case outRetrySame:
			wait = max(c.backoff(backoffN), min(r.wait, c.maxBackoff))
			backoffN++
			c.log.Warn().Err(r.err).Str("op", cl.op).Dur("wait", wait).Int("attempt", attempt).Msg("yarnclient: retrying")
		}
		if err := c.sleep(ctx, wait); err != nil {
			return 0, fmt.Errorf("yarnclient: %s: %w (last error: %w)", cl.op, err, lastErr)
		}
	}
	return 0, fmt.Errorf("yarnclient: %s: giving up after %d attempts: %w", cl.op, c.maxAttempts, lastErr)
}

// backoff returns the full-jitter delay before retry n (0-based).
func (c *Client) backoff(n int) time.Duration {
	ceil := c.baseBackoff
	for i := 0; i < n && ceil < c.maxBackoff; i++ {
		ceil *= 2
	}
	ceil = min(ceil, c.maxBackoff)
	return time.Duration(c.rnd() * float64(ceil))
}

func (c *Client) buildURL(idx int, cl *call) *url.URL {
	u := *c.bases[idx]
	// cl.path holds escaped segments (ids go through url.PathEscape).
	raw := c.bases[idx].EscapedPath() + cl.path
	if p, err := url.PathUnescape(raw); err == nil {
		u.Path, u.RawPath = p, raw
	} else {
		u.Path, u.RawPath = raw, ""
	}
	q := url.Values{}
	for k, v := range cl.query {
		q[k] = v
	}
	if c.user != "" && !c.spnego {
		q.Set("user.name", c.user)
	}
	u.RawQuery = q.Encode()
	return &u
}

// urlFor renders the request URL for errors and logs. It holds no secret:
// user.name is not one, and SPNEGO tokens travel in headers.
func (c *Client) urlFor(idx int, cl *call) string { return c.buildURL(idx, cl).String() }

func (c *Client) once(ctx context.Context, idx int, cl *call, payload []byte) result {
	u := c.buildURL(idx, cl)
	us := u.String()
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, cl.method, us, body)
	if err != nil {
		return result{kind: outFatal, err: fmt.Errorf("yarnclient: %s: %s %s: %w", cl.op, cl.method, us, err)}
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		werr := fmt.Errorf("yarnclient: %s: %s %s: %w", cl.op, cl.method, us, err)
		if ctx.Err() != nil {
			return result{kind: outFatal, err: werr}
		}
		return result{kind: outFailover, err: werr, redirectTo: -1}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		werr := fmt.Errorf("yarnclient: %s: %s %s: read body: %w", cl.op, cl.method, us, err)
		if ctx.Err() != nil {
			return result{kind: outFatal, err: werr}
		}
		return result{kind: outFailover, err: werr, redirectTo: -1}
	}
	if int64(len(data)) > c.maxBody {
		return result{kind: outFatal, status: resp.StatusCode, err: fmt.Errorf("yarnclient: %s: %s %s: response larger than %d bytes", cl.op, cl.method, us, c.maxBody)}
	}
	r := result{status: resp.StatusCode, body: data, redirectTo: -1}

	if c.isStandby(resp, data, cl) {
		r.kind = outFailover
		r.redirectTo = c.indexOf(resp.Header.Get("Location"), idx)
		r.err = fmt.Errorf("yarnclient: %s: %s %s: HTTP %d: %w", cl.op, cl.method, us, resp.StatusCode, ErrStandby)
		return r
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if cl.proxy && cl.out != nil && !looksJSON(resp, data) {
			r.kind = outFatal
			r.err = fmt.Errorf("yarnclient: %s: %s %s: non-JSON answer (%s): %w", cl.op, cl.method, us, resp.Header.Get("Content-Type"), ErrAMUnavailable)
			return r
		}
		r.kind = outOK
		return r
	}
	herr := newHTTPError(cl.op, cl.method, us, resp, data)
	r.err = herr
	switch {
	case cl.proxy && resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.kind = outFatal
		r.err = fmt.Errorf("%w (redirect to %q): %w", herr, resp.Header.Get("Location"), ErrAMUnavailable)
	case resp.StatusCode >= 500:
		r.kind = outRetrySame
		r.wait = retryAfter(herr.RetryAfter)
	case resp.StatusCode == http.StatusTooManyRequests || (resp.StatusCode >= 400 && herr.RetryAfter != ""):
		// The RM asks for a retry.
		r.kind = outRetrySame
		r.wait = retryAfter(herr.RetryAfter)
	default:
		r.kind = outFatal
	}
	return r
}

// isStandby recognises a standby RM: the "This is standby RM" page (served
// with 200 and a Refresh header, or with a 307), or a bare 307 on a
// /ws/v1/cluster call.
func (c *Client) isStandby(resp *http.Response, body []byte, cl *call) bool {
	head := body
	if len(head) > 1024 {
		head = head[:1024]
	}
	if bytes.Contains(head, []byte(standbyMarker)) {
		return true
	}
	return !cl.proxy && resp.StatusCode == http.StatusTemporaryRedirect
}

// indexOf maps a redirect Location to a configured RM other than cur.
func (c *Client) indexOf(loc string, cur int) int {
	if loc == "" {
		return -1
	}
	u, err := url.Parse(loc)
	if err != nil || u.Host == "" {
		return -1
	}
	for i, b := range c.bases {
		if i != cur && strings.EqualFold(b.Host, u.Host) {
			return i
		}
	}
	return -1
}

func looksJSON(resp *http.Response, body []byte) bool {
	ct := resp.Header.Get("Content-Type")
	if strings.Contains(ct, "json") {
		return true
	}
	t := bytes.TrimSpace(body)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// get is a GET with JSON decoding into out.
func (c *Client) get(ctx context.Context, op, path string, q url.Values, out any) error {
	_, err := c.do(ctx, &call{op: op, method: http.MethodGet, path: path, query: q, out: out})
	return err
}
