package supervisor

import "context"

var LoadTLS = loadTLS

type Service = service

// Services asks the gateway for the loaded services.
func (c Client) Services(ctx context.Context) ([]Service, error) { return c.services(ctx) }
