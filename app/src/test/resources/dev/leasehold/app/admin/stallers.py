# Stalled HTTP clients for AdminEndpointSecurityTest, run inside a network namespace:
#   stallers.py HOST PORT SOURCE1,SOURCE2,... COUNT
# Opens COUNT connections to HOST:PORT, spread over the source addresses, each sending half a
# request and then nothing; prints "held COUNT" once all are open, then reopens every connection
# the server closes (as an attacker would) and prints "reopened N" after each round.
import socket
import sys
import time

host, port, sources, count = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4])


def stall(i):
    s = socket.socket()
    s.bind((sources[i % len(sources)], 0))
    s.settimeout(5)
    s.connect((host, port))
    s.sendall(b"GET /jobs HTTP/1.1\r\nHost: x\r\n")
    s.setblocking(False)
    return s


sockets = [stall(i) for i in range(count)]
print("held", count, flush=True)
reopened = 0
while True:
    time.sleep(0.2)
    for i, s in enumerate(sockets):
        try:
            closed = s.recv(1) == b""
        except BlockingIOError:
            closed = False
        except OSError:
            closed = True
        if closed:
            s.close()
            try:
                sockets[i] = stall(i)
                reopened += 1
            except OSError:
                pass
    print("reopened", reopened, flush=True)
