import java.io.FileReader;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The floor of an exactly-once handler on this broker, with Kafka's own Java client (the sandbox's, newer than the
 * handler's): a consume-transform-produce relay with no database that copies each poll's records from IN to OUT in one
 * transaction with the consumed offsets, as the handler commits a batch, and a probe that times records sent to IN until
 * they are readable on OUT with read_committed, as `bankops latency` times a command's feedback. What the handler adds on
 * top is its own work per batch (the database's reads, writes, PREPARE and commit, the rules, the encoding).
 *
 *   java -cp KAFKA_CLASSPATH TxnFloor.java relay CLIENT_PROPERTIES BOOTSTRAP IN OUT GROUP SECONDS
 *   java -cp KAFKA_CLASSPATH TxnFloor.java probe CLIENT_PROPERTIES BOOTSTRAP IN OUT COUNT INTERVAL_MS [WARM_UP_COUNT]
 *
 * The relay reads every partition of IN from its end (assigned, so no group join delays it; it says "relay: ready" on
 * stderr once positioned) and fetches as the handler does (fetch.min.bytes 1, fetch.max.wait.ms 50, read_committed), lingers 1 ms and
 * retries a transaction begun while the last one's markers are written after 5 ms; the probe's producer does not
 * linger and its reader waits at most 10 ms a fetch, as bankops' probes do. The first WARM_UP_COUNT probes are sent
 * and not counted (the JIT and the cluster warming up, as `bankops latency --warm-up`). The probe prints one JSON line. The test
 * build compiles it too (against the handler's older client), so it keeps to the API both clients have.
 */
public class TxnFloor {
    static Properties client(String file, String bootstrap) throws Exception {
        Properties p = new Properties();
        try (FileReader r = new FileReader(file)) { p.load(r); }
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    /** Every partition of the topic, positioned at its end now (seekToEnd alone is lazy). */
    static void assignAtEnd(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo i : consumer.partitionsFor(topic)) partitions.add(new TopicPartition(topic, i.partition()));
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    static volatile boolean stopping = false;

    static void relay(Properties base, String in, String out, String group, double seconds) {
        Properties c = new Properties(); c.putAll(base);
        c.put("isolation.level", "read_committed"); c.put("enable.auto.commit", "false"); c.put("fetch.min.bytes", "1"); c.put("fetch.max.wait.ms", "50"); c.put("max.poll.records", "1000");
        Properties p = new Properties(); p.putAll(base);
        p.put("transactional.id", group + "-relay"); p.put("linger.ms", "1"); p.put("batch.size", "65536");
        p.put("retry.backoff.ms", "5"); p.put("transaction.timeout.ms", "10000");
        long copied = 0, transactions = 0, end = System.nanoTime() + (long) (seconds * 1e9);
        // Stopped (SIGTERM) once the probe is done: the transaction under way commits first, so no open transaction
        // holds read_committed readers back until it times out.
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping = true;
            try { main.join(15_000); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        }));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            // Every partition from its end, with no group membership to wait for; the offsets still go to GROUP.
            assignAtEnd(consumer, in);
            ConsumerGroupMetadata metadata = new ConsumerGroupMetadata(group);
            System.err.println("relay: ready");
            while (System.nanoTime() < end && !stopping) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) continue;
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    producer.send(new ProducerRecord<>(out, r.partition(), r.key(), r.value()));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                // The offsets' round trips while the records are in flight, as the handler overlaps them with its work.
                producer.sendOffsetsToTransaction(offsets, metadata);
                producer.commitTransaction();
                copied += records.count();
                transactions++;
            }
        }
        System.err.printf("{\"copied\": %d, \"transactions\": %d}%n", copied, transactions);
    }

    static void probe(Properties base, String in, String out, int count, long intervalMs, int warmUp) {
        Properties p = new Properties(); p.putAll(base);
        p.put("linger.ms", "0"); p.put("acks", "all");
        Properties c = new Properties(); c.putAll(base);
        c.put("isolation.level", "read_committed"); c.put("enable.auto.commit", "false"); c.put("fetch.min.bytes", "1");
        c.put("fetch.max.wait.ms", "10");
        Map<String, Long> pending = new HashMap<>();
        List<Double> latencies = new ArrayList<>();
        Set<String> warming = new HashSet<>();
        int timeouts = 0, sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
             KafkaConsumer<byte[], byte[]> reader = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            assignAtEnd(reader, out);
            long next = System.nanoTime();
            while (sent < warmUp + count || !pending.isEmpty()) {
                long now = System.nanoTime();
                if (sent < warmUp + count && now >= next) {
                    String key = "probe-" + UUID.randomUUID();
                    if (sent < warmUp) warming.add(key);
                    pending.put(key, System.nanoTime());
                    producer.send(new ProducerRecord<>(in, key.getBytes(), "probe".getBytes()));
                    sent++;
                    next += intervalMs * 1_000_000L;
                }
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(2))) {
                    Long at = r.key() == null ? null : pending.remove(new String(r.key()));
                    if (at != null && !warming.remove(new String(r.key()))) latencies.add((System.nanoTime() - at) / 1e6);
                }
                Iterator<Map.Entry<String, Long>> it = pending.entrySet().iterator();
                while (it.hasNext()) {
                    Map.Entry<String, Long> e = it.next();
                    if (System.nanoTime() - e.getValue() > 5_000_000_000L) { it.remove(); if (!warming.remove(e.getKey())) timeouts++; }
                }
            }
        }
        Collections.sort(latencies);
        System.out.printf(Locale.ROOT, "{\"probes\": %d, \"timeouts\": %d, \"p50\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"max\": %.3f}%n",
            latencies.size() + timeouts, timeouts, at(latencies, 0.50), at(latencies, 0.99), at(latencies, 0.999),
            latencies.isEmpty() ? Double.NaN : latencies.get(latencies.size() - 1));
    }

    static double at(List<Double> sorted, double q) {
        return sorted.isEmpty() ? Double.NaN : sorted.get(Math.min(sorted.size() - 1, (int) (q * sorted.size())));
    }

    public static void main(String[] args) throws Exception {
        Properties base = client(args[1], args[2]);
        switch (args[0]) {
            case "relay": relay(base, args[3], args[4], args[5], Double.parseDouble(args[6])); break;
            case "probe": probe(base, args[3], args[4], Integer.parseInt(args[5]), Long.parseLong(args[6]),
                args.length > 7 ? Integer.parseInt(args[7]) : 0); break;
            default: System.err.println("TxnFloor: unknown mode " + args[0] + " (relay or probe)"); System.exit(2);
        }
    }
}
