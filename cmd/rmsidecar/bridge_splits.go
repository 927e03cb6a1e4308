package main

import (
	"context"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/hdfslocality"
	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// splitResolver adapts hdfslocality to the bridge's SplitSource.
type splitResolver struct{ r *hdfslocality.Resolver }

func (s splitResolver) Splits(ctx context.Context, paths []string, minSize, maxSize int64) ([]events.Split, bool, error) {
	return s.r.Splits(ctx, paths, hdfslocality.SplitSizes{Min: minSize, Max: maxSize})
}

// bridgeSplits builds the bridge's split source from the Hadoop conf dir
// (flag, else hdfs.conf_dir, else $HADOOP_CONF_DIR); nil when there is none.
// It never contacts the NameNode: that happens at the first job.
func bridgeSplits(cfg *config.Config, flagDir string, env []string, status *bridgeStatus, log zerolog.Logger) (yarnclient.SplitSource, func(), error) {
	dir := flagDir
	if dir == "" {
		dir = cfg.HDFS.ConfDir
	}
	if dir == "" {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "HADOOP_CONF_DIR="); ok {
				dir = v
			}
		}
	}
	if dir == "" || dir == "none" {
		log.Info().Msg("bridge: no Hadoop conf dir (--hdfs-conf, hdfs.conf_dir, HADOOP_CONF_DIR): task.pending without input split hosts")
		return nil, func() {}, nil
	}
	opts := hdfslocality.Options{Logger: log.With().Str("component", "hdfslocality").Logger(),
		Registerer: status.registry, TTL: cfg.HDFS.CacheTTL, MaxEntries: cfg.HDFS.CacheEntries,
		// A poll waits for the NameNode at most this long per job.
		FetchTimeout: 10 * time.Second}
	if k := cfg.Kerberos; k.Principal != "" {
		// Used when the Hadoop conf says hadoop.security.authentication=kerberos.
		kcl, err := yarnclient.KerberosClient(yarnclient.SPNEGOConfig{Principal: k.Principal, Keytab: k.Keytab, Krb5Conf: k.Krb5Conf})
		if err != nil {
			return nil, nil, badInput("kerberos: %v", err)
		}
		opts.KerberosClient = kcl
	}
	if cfg.HDFS.TopologyFile != "" {
		t, err := hdfslocality.LoadTopologyFile(cfg.HDFS.TopologyFile)
		if err != nil {
			return nil, nil, badInput("hdfs.topology_file: %v", err)
		}
		opts.Racks = t
	}
	r, err := hdfslocality.NewFromConfDir(dir, opts)
	if err != nil {
		key := "hdfs.conf_dir"
		if flagDir != "" {
			key = "--hdfs-conf"
		}
		return nil, nil, badInput("%s %s: %v", key, dir, err)
	}
	log.Info().Str("conf_dir", dir).Dur("cache_ttl", cfg.HDFS.CacheTTL).Int("cache_entries", cfg.HDFS.CacheEntries).
		Msg("bridge: input split hosts from the NameNode")
	return splitResolver{r}, func() { _ = r.Close() }, nil
}
