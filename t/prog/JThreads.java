// JThreads.java -- a Java program that starts N threads one after another
// (every HotSpot thread asks glibc for its own stack before it
// allocates), each allocating; prints "threads N".  Compiled by the tests
// that run it with Debian's javac (make deps).
public class JThreads {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int ok = 0;
        for (int i = 0; i < n; i++) {
            final int k = i;
            final int[] box = new int[1];
            Thread t = new Thread(() -> { box[0] = new byte[64 + k % 512].length; });
            t.start();
            t.join();
            if (box[0] > 0)
                ok++;
        }
        System.out.println("threads " + ok);
    }
}
