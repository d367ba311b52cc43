# Runs inside MicroRemed's bubblewrap sandbox, which has no network: listens on 127.0.0.1:PORT
# and relays each connection to the unix socket of the runner's API proxy outside, then runs the
# command given after `--` and exits with its status. When it exits the sandbox's PID namespace
# ends, and every process left in it (async tasks, setsid children) is killed by the kernel.
# More SOCKET PORT pairs relay more of the runner's sockets (an MCP server for an agent).
#   python3 launch.py SOCKET PORT [SOCKET PORT ...] -- COMMAND...
import os
import resource
import socket
import subprocess
import sys
import threading


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listener, path):
    while True:
        conn, _ = listener.accept()
        out = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            out.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=pipe, args=(conn, out), daemon=True).start()
        threading.Thread(target=pipe, args=(out, conn), daemon=True).start()


def main():
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit("usage: launch.py SOCKET PORT [SOCKET PORT ...] -- COMMAND...")
    sep = args.index("--")
    pairs, command = args[:sep], args[sep + 1 :]
    if not command or not pairs or len(pairs) % 2:
        sys.exit("usage: launch.py SOCKET PORT [SOCKET PORT ...] -- COMMAND...")
    for sock_path, port in zip(pairs[::2], pairs[1::2]):
        # no proxy outside (no cluster for this run): nothing listens, so API calls fail at once
        if not os.path.exists(sock_path):
            continue
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", int(port)))
        listener.listen(64)
        threading.Thread(target=serve, args=(listener, sock_path), daemon=True).start()
    # where to write the CPU time (relative to the working directory), kept from the command
    usage_file = os.environ.pop("RUSAGE_FILE", None)
    try:
        child = subprocess.Popen(command)
    except FileNotFoundError:
        sys.stderr.write(f"{command[0]}: command not found\n")
        sys.exit(127)
    status = child.wait()
    # the CPU time of the command and every process it waited for: the runner counts it as the
    # playbook's own time (what it spends computing, not waiting on the cluster)
    if usage_file:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        # not through a link or into a FIFO the command may have left at that path
        try:
            if os.path.lexists(usage_file):
                os.unlink(usage_file)
            fd = os.open(usage_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            os.write(fd, f"{(ru.ru_utime + ru.ru_stime) * 1000:.0f}\n".encode())
            os.close(fd)
        except OSError:
            pass
    sys.exit(status)


if __name__ == "__main__":
    main()
