package yarnclient

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/spnego"
)

// DefaultKrb5Conf is used when SPNEGOConfig.Krb5Conf is empty.
const DefaultKrb5Conf = "/etc/krb5.conf"

// SPNEGOConfig selects Kerberos (SPNEGO) authentication against a secured RM.
type SPNEGOConfig struct {
	// Principal is the client principal, "name@REALM" or
	// "name/host@REALM"; without a realm the krb5.conf default_realm is used.
	Principal string
	// Keytab is the path of a keytab holding Principal's keys.
	Keytab string
	// Krb5Conf is the path of krb5.conf (default /etc/krb5.conf).
	Krb5Conf string
	// SPN is the service principal to ask a ticket for, e.g.
	// "HTTP/rm1.example.com". Empty derives HTTP/<host> from each request,
	// which is what RM HA needs (one SPN per RM host).
	SPN string
	// EnablePAFXFAST keeps the PA-FX-FAST padata on (gokrb5 default); most
	// Active Directory and MIT KDCs want it off.
	EnablePAFXFAST bool
}

// negotiateTransport answers a 401 "WWW-Authenticate: Negotiate" challenge by
// replaying the request once with an SPNEGO token. The http.Client's cookie
// jar then carries the hadoop.auth cookie, so most requests need no token.
type negotiateTransport struct {
	next http.RoundTripper
	// authorize sets the Authorization header on r (spnego.SetSPNEGOHeader
	// in production, a fake in tests).
	authorize func(r *http.Request) error
}

func newSPNEGOTransport(cfg SPNEGOConfig, next http.RoundTripper) (*negotiateTransport, error) {
	kcl, err := KerberosClient(cfg)
	if err != nil {
		return nil, err
	}
	spn := cfg.SPN
	return &negotiateTransport{
		next:      next,
		authorize: func(r *http.Request) error { return spnego.SetSPNEGOHeader(kcl, r, spn) },
	}, nil
}

// KerberosClient builds a gokrb5 client from cfg's principal, keytab and
// krb5.conf; it logs in lazily, on first use, so a KDC that is down at start
// does not stop the process. The HDFS locality resolver takes the same client.
func KerberosClient(cfg SPNEGOConfig) (*client.Client, error) {
	if cfg.Principal == "" || cfg.Keytab == "" {
		return nil, errors.New("yarnclient: config: Kerberos needs a principal and a keytab")
	}
	confPath := cfg.Krb5Conf
	if confPath == "" {
		confPath = DefaultKrb5Conf
	}
	kconf, err := config.Load(confPath)
	if err != nil {
		return nil, fmt.Errorf("yarnclient: config: krb5.conf %s: %w", confPath, err)
	}
	kt, err := keytab.Load(cfg.Keytab)
	if err != nil {
		return nil, fmt.Errorf("yarnclient: config: keytab %s: %w", cfg.Keytab, err)
	}
	name, realm := splitPrincipal(cfg.Principal)
	if realm == "" {
		realm = kconf.LibDefaults.DefaultRealm
	}
	if realm == "" {
		return nil, fmt.Errorf("yarnclient: config: principal %q has no realm and %s has no default_realm", cfg.Principal, confPath)
	}
	return client.NewWithKeytab(name, realm, kt, kconf, client.DisablePAFXFAST(!cfg.EnablePAFXFAST)), nil
}

// splitPrincipal splits "name/inst@REALM" into "name/inst" and "REALM".
func splitPrincipal(p string) (name, realm string) {
	if i := strings.LastIndex(p, "@"); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

func (t *negotiateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || !wantsNegotiate(resp) {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // cannot replay the body; let the caller see the 401
	}
	r2 := req.Clone(req.Context())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		r2.Body = b
	}
	if err := t.authorize(r2); err != nil {
		if r2.Body != nil {
			r2.Body.Close()
		}
		resp.Body.Close()
		return nil, fmt.Errorf("spnego: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return t.next.RoundTrip(r2)
}

func wantsNegotiate(resp *http.Response) bool {
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		if strings.HasPrefix(strings.TrimSpace(v), "Negotiate") {
			return true
		}
	}
	return false
}
