// Package docker holds the container build (Dockerfile), a compose file that
// attaches the sidecar to a dockerized Hadoop cluster and a KRaft Kafka, and
// the sidecar config used there. Its test is `make docker-config-check`: it
// validates the compose file's structure and the config with rmsidecar's own
// validation, without a Docker engine.
package docker
