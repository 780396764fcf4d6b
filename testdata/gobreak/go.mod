module example.com/gobreak

go 1.26
