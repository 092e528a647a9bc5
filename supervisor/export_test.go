package supervisor

var LoadTLS = loadTLS
