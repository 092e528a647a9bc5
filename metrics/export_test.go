package metrics

func (m *Metrics) Restore(data []byte) error { return m.restore(data) }
