package suggest

var (
	Nearest  = nearest
	Distance = distance
)
