package integration
import ("testing"; "github.com/ory/dockertest/v3")
func TestX(t *testing.T){ p,err:=dockertest.NewPool(""); if err!=nil{t.Fatal(err)}; if err:=p.Client.Ping(); err!=nil{t.Fatal(err)}; v,_:=p.Client.Version(); t.Log(v) }
