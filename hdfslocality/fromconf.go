package hdfslocality

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/user"
	"time"

	"github.com/jcmturner/gokrb5/v8/spnego"
)

// NewFromConfDir builds a Resolver for the default filesystem of the Hadoop
// configuration in dir (core-site.xml, hdfs-site.xml; "" means
// HADOOP_CONF_DIR, then HADOOP_HOME/conf). It does not contact the NameNode:
// the RPC connection is made on first use, so a NameNode that is down at
// start only makes lookups fail (and retry) until it is back.
//
// With hadoop.security.authentication=kerberos, opts.KerberosClient must
// hold a logged-in client; it authenticates RPC and (SPNEGO) WebHDFS. A
// topology table file named by net.topology.table.file.name is loaded
// unless opts.Racks is set.
func NewFromConfDir(dir string, opts Options) (*Resolver, error) {
	conf, err := LoadConf(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := ConfigFromHadoop(conf)
	if err != nil {
		return nil, err
	}
	return NewFromConfig(cfg, opts)
}

// NewFromConfig is NewFromConfDir for an already derived Config.
func NewFromConfig(cfg Config, opts Options) (*Resolver, error) {
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	httpTimeout := opts.HTTPTimeout
	if httpTimeout <= 0 {
		httpTimeout = 20 * time.Second
	}
	dialTimeout := opts.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = 10 * time.Second
	}

	clientOpts := cfg.ClientOptions
	var doer HTTPDoer = &http.Client{Timeout: httpTimeout}
	webUser := ""
	if cfg.Kerberos {
		if opts.KerberosClient == nil {
			return nil, errors.New("hdfslocality: hadoop.security.authentication=kerberos: Options.KerberosClient (a logged-in client) is required")
		}
		if clientOpts.KerberosServicePrincipleName == "" {
			return nil, errors.New("hdfslocality: hadoop.security.authentication=kerberos: dfs.namenode.kerberos.principal is not set")
		}
		clientOpts.KerberosClient = opts.KerberosClient
		// An empty SPN makes gokrb5 use HTTP/<host of the request>, the
		// principal NameNode web endpoints run as.
		doer = spnego.NewClient(opts.KerberosClient, &http.Client{Timeout: httpTimeout}, "")
	} else {
		u := opts.User
		if u == "" {
			u = os.Getenv("HADOOP_USER_NAME")
		}
		if u == "" {
			cu, err := user.Current()
			if err != nil {
				return nil, fmt.Errorf("hdfslocality: no user: set Options.User or HADOOP_USER_NAME: %w", err)
			}
			u = cu.Username
		}
		clientOpts.KerberosClient = nil
		clientOpts.User = u
		webUser = u
	}

	loc, err := NewWebHDFS(WebHDFSOptions{
		Addrs:  cfg.HTTPAddrs,
		User:   webUser,
		Client: doer,
		OnFailover: func(string, error) {
			m.failovers.Inc()
		},
	})
	if err != nil {
		return nil, err
	}
	if opts.Racks == nil && cfg.TopologyFile != "" {
		t, err := LoadTopologyFile(cfg.TopologyFile)
		if err != nil {
			return nil, fmt.Errorf("hdfslocality: net.topology.table.file.name: %w", err)
		}
		opts.Racks = t
	}
	ns := newLazyNamespace(clientOpts, dialTimeout)
	r := newResolver(ns, loc, opts, m)
	r.closers = append(r.closers, ns)
	return r, nil
}
