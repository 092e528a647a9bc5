package supervisor_test

import (
	"io"
	"log"
)

// quietLog drops the TLS handshake errors a server logs for the clients the
// tests send without a valid certificate.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
