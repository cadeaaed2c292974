module example.com/shelf

go 1.26
