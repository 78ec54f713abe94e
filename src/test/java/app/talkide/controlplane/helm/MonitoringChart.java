package app.talkide.controlplane.helm;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/** The chart rendered with its monitoring flags on, and the alert rules in it, for the tests that check them. */
public final class MonitoringChart {

    static final Path CHART = Path.of("helm", "talkide-control-plane");
    private static final Pattern METRIC = Pattern.compile("\\btalkide_[a-z0-9_]+");

    private MonitoringChart() {}

    /** Every object the chart renders with the dashboard and the rules on. */
    public static List<Map<String, Object>> render(UnaryOperator<TemplateCommand> customize) {
        TemplateCommand command = new Helm(CHART)
                .template()
                .withName("talkide")
                .withNamespace("talkide-prod")
                .set("database.url", "jdbc:postgresql://db:5432/talkide")
                .set("database.username", "talkide")
                .set("database.password", "db-secret")
                .set("anthropic.apiKey", "sk-ant-test")
                .set("masterKeys.keys", "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
                .set("masterKeys.activeKid", "k1")
                .set("oidc.issuerUri", "https://id.example.com/realms/talkide")
                .set("oidc.audience", "talkide-console")
                .set("monitoring.prometheusRule.enabled", true)
                .set("monitoring.grafanaDashboard.enabled", true);
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(customize.apply(command).call())) {
            if (document instanceof Map<?, ?> map) {
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) map;
                objects.add(object);
            }
        }
        return objects;
    }

    /** The alert rules by group name: alert name to its expression. */
    @SuppressWarnings("unchecked")
    public static Map<String, Map<String, String>> alerts() {
        return alerts(UnaryOperator.identity());
    }

    /** As {@link #alerts()}, with other values. */
    @SuppressWarnings("unchecked")
    public static Map<String, Map<String, String>> alerts(UnaryOperator<TemplateCommand> customize) {
        Map<String, Object> rule = render(customize).stream()
                .filter(object -> "PrometheusRule".equals(object.get("kind")))
                .findFirst()
                .orElseThrow();
        Map<String, Map<String, String>> groups = new LinkedHashMap<>();
        for (Map<String, Object> group :
                (List<Map<String, Object>>) ((Map<String, Object>) rule.get("spec")).get("groups")) {
            Map<String, String> alerts = new LinkedHashMap<>();
            for (Map<String, Object> alert : (List<Map<String, Object>>) group.get("rules")) {
                alerts.put((String) alert.get("alert"), alert.get("expr").toString());
            }
            groups.put((String) group.get("name"), alerts);
        }
        return groups;
    }

    /** The alert thresholds the chart's values.yaml offers, by key under {@code monitoring.prometheusRule.thresholds}. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> thresholds() throws java.io.IOException {
        Map<String, Object> values = new Yaml().load(java.nio.file.Files.readString(CHART.resolve("values.yaml")));
        Map<String, Object> monitoring = (Map<String, Object>) values.get("monitoring");
        return (Map<String, Object>) ((Map<String, Object>) monitoring.get("prometheusRule")).get("thresholds");
    }

    /** The series names (as Prometheus scrapes them) the alerts of one group use. */
    public static TreeSet<String> metricsOf(String group) {
        TreeSet<String> names = new TreeSet<>();
        alerts().get(group).values().forEach(expr -> {
            Matcher matcher = METRIC.matcher(expr);
            while (matcher.find()) {
                names.add(matcher.group());
            }
        });
        return names;
    }

    /** Series names in a Prometheus text exposition. */
    public static TreeSet<String> seriesIn(String scrape) {
        TreeSet<String> names = new TreeSet<>();
        scrape.lines()
                .filter(line -> !line.startsWith("#") && !line.isBlank())
                .map(line -> line.split("[{ ]", 2)[0])
                .forEach(names::add);
        return names;
    }
}
