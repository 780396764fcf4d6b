module example.com/user

go 1.22
