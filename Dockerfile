# mcpchaos as a container: the static binary on an empty base.
#
# Nothing is pulled: `scratch` is built into Docker, and the binary is built
# on the host first (CGO_ENABLED=0, so it needs no libc). `make image` does
# both; by hand:
#
#   CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o bin/docker/mcpchaos ./cmd/mcpchaos
#   docker build -t mcpchaos:dev .
#
# Run it (the API listens on every interface of the container, so it
# refuses to start without a token of at least 16 bytes):
#
#   docker run -e MCPCHAOS_TOKEN=$(openssl rand -hex 16) -p 7777:7777 mcpchaos:dev
#
# No CA certificates: upstream proxies and the API speak plain HTTP or TCP,
# and a scenario's server is reached over http://. Add them (COPY a
# ca-certificates.crt to /etc/ssl/certs/) only for an https:// server url.
FROM scratch

COPY bin/docker/mcpchaos /mcpchaos

# 65532 is "nonroot" in distroless images: no name needed, no home, no shell.
USER 65532:65532

# serve's address comes from the environment, so that the health check
# (which reads the same variable) follows a changed port.
ENV MCPCHAOS_API_ADDR=0.0.0.0:7777
EXPOSE 7777

HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/mcpchaos", "healthcheck"]

ENTRYPOINT ["/mcpchaos"]
CMD ["serve"]
