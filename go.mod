module github.com/hab-gc/hab-gc

go 1.26.0

require github.com/pelletier/go-toml/v2 v2.4.3

require gonum.org/v1/gonum v0.17.0

require (
	github.com/Masterminds/semver/v3 v3.5.0 // indirect
	github.com/gofrs/flock v0.13.2 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
