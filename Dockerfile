# The control plane image, built by Kaniko in CI from the jar the test stage produced
# (./mvnw package). Layers: dependencies change rarely, the application often.
# The base is a build argument: CI builds on the public Temurin JRE; scripts/cluster/build-images passes a JRE 21
# made from Debian packages on machines without a registry.
ARG JRE_IMAGE=eclipse-temurin:21-jre-noble
FROM ${JRE_IMAGE} AS layers
WORKDIR /build
COPY target/talkide-control-plane-*.jar application.jar
RUN java -Djarmode=tools -jar application.jar extract --layers --launcher --destination extracted

FROM ${JRE_IMAGE}
RUN groupadd --system --gid 10001 talkide && useradd --system --uid 10001 --gid talkide --no-create-home talkide
WORKDIR /application
COPY --from=layers /build/extracted/dependencies/ ./
COPY --from=layers /build/extracted/spring-boot-loader/ ./
COPY --from=layers /build/extracted/snapshot-dependencies/ ./
COPY --from=layers /build/extracted/application/ ./
USER 10001:10001
EXPOSE 8080 9090
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
