package org.wislice.onos.agent;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * The test-only PKI of src/test/resources/tls (see its README) and TLS client sockets playing agents. Shared with
 * the controllers' tests through the test-jar, where the PEMs are jar entries: file() copies them out.
 */
public final class TestTls {

    private static Path dir;

    private TestTls() {
    }

    /** A file system path of tls/NAME (ca.pem, server.pem, client-key.pem, ...). */
    public static synchronized String file(String name) {
        try {
            if (dir == null) {
                dir = Files.createTempDirectory("wislice-test-tls");
                dir.toFile().deleteOnExit();
            }
            Path f = dir.resolve(name);
            if (!Files.exists(f)) {
                try (InputStream in = TestTls.class.getResourceAsStream("/tls/" + name)) {
                    if (in == null) {
                        throw new IllegalArgumentException("no test resource tls/" + name);
                    }
                    Files.copy(in, f, StandardCopyOption.REPLACE_EXISTING);
                }
                f.toFile().deleteOnExit();
            }
            return f.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A TLS socket to 127.0.0.1:port that trusts the test CA and checks the server certificate's address, like
     * the Python agents; presents tls/CLIENT.pem with tls/CLIENT-key.pem unless client is null. The handshake
     * happens on first use.
     */
    public static SSLSocket connect(int port, String client) throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificates("ca.pem")[0]);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (client != null) {
            char[] password = "test".toCharArray();
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("agent", privateKey(client + "-key.pem"), password, certificates(client + ".pem"));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, password);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        SSLParameters params = socket.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        socket.setSSLParameters(params);
        socket.setSoTimeout(5000);
        return socket;
    }

    static Certificate[] certificates(String name) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(Path.of(file(name)))) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new Certificate[0]);
        }
    }

    static PrivateKey privateKey(String name) throws IOException, GeneralSecurityException {
        String pem = Files.readString(Path.of(file(name)), StandardCharsets.US_ASCII);
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        byte[] der = Base64.getDecoder().decode(base64);
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
    }
}
