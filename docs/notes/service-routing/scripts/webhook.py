# A validating webhook for the test: denies ConfigMaps whose name starts with "deny-".
import json, ssl, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        req = review["request"]; name = req["name"] or req["object"]["metadata"].get("name", "")
        allowed = not name.startswith("deny-")
        print(f"webhook: {req['operation']} configmap {req['namespace']}/{name} from {self.client_address[0]} allowed={allowed}", flush=True)
        resp = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "response": {"uid": req["uid"], "allowed": allowed,
                             "status": {"message": "kp test webhook denies deny-*"}}}
        body = json.dumps(resp).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
srv = HTTPServer((sys.argv[1], int(sys.argv[2])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain("/work/kp/run/hook.crt", "/work/kp/run/hook.key")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
