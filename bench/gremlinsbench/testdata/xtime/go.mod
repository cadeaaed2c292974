module golang.org/x/time

go 1.26.0
